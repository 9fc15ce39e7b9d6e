import LastsetFormats

/// Whether a page's latest archived template would pass its identity check on a device a scan found: the identity
/// registers hold what the template's source held, and the FC43 objects equal it or match their pattern — the
/// same comparisons a replay makes (`RecordedValue.isHeld`, `IdentityObject.check`).
public struct TemplateFit: Sendable, Hashable {
    /// The page.
    public var pageId: String
    /// The version compared (nil: the page has no template).
    public var versionId: String?
    /// Whether every identity register and object matches.
    public var fits: Bool
    /// The checks, one per identity register and object.
    public var checks: [IdentityCheck]

    /// Sets every field.
    public init(pageId: String, versionId: String?, fits: Bool, checks: [IdentityCheck]) {
        self.pageId = pageId
        self.versionId = versionId
        self.fits = fits
        self.checks = checks
    }

    /// The judgement for `page` and its latest `template` on a device whose identity registers read `words`
    /// (by registerId; absent: not read) and whose FC43 identification is `identification`. Nil for a page that
    /// declares no identity: nothing tells whether it fits.
    public static func judge(
        page: CompiledPage, template: Template?, words: [String: [UInt16]], identification: DeviceIdentification?
    ) -> TemplateFit? {
        guard !page.identity.isEmpty || !page.identityObjects.isEmpty else { return nil }
        guard let template else { return TemplateFit(pageId: page.id, versionId: nil, fits: false, checks: []) }
        var checks: [IdentityCheck] = []
        for reg in page.identity {
            let recorded = template.source.identity.first { $0.registerId == reg.registerId }
            var check = IdentityCheck(registerId: reg.registerId, expected: recorded?.value, matches: false)
            if let w = words[reg.registerId] {
                check.actual = RegisterCodec.decode(w, as: reg.definition)
                check.matches = recorded?.isHeld(by: w) ?? false
                if !check.matches {
                    check.message = recorded == nil ? "the template recorded no value for it" : "differs"
                }
            } else {
                check.message = "not read"
            }
            checks.append(check)
        }
        for object in page.identityObjects {
            let recorded = template.source.identity.first { $0.registerId == object.recordedId }
            checks.append(object.check(recorded: recorded, actual: identification?.object(object.object)))
        }
        return TemplateFit(
            pageId: page.id, versionId: template.versionId.id, fits: checks.allSatisfy(\.matches), checks: checks)
    }
}

extension TemplateFit: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = TemplateFit(pageId: "", versionId: nil, fits: false, checks: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("checks", &r.checks)
        try f.field("fits", &r.fits)
        try f.field("pageId", &r.pageId)
        try f.field("versionId", &r.versionId)
    }
}
