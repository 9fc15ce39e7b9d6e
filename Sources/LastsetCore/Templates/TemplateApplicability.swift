/// Whether a template version applies to this host's page, as the one admission decision (`TemplateAdmission`)
/// says: what listings, `show` and health show of a version (a fleet version captured against another register
/// layout is kept, as history, but not applicable here).
public struct TemplateApplicability: Codable, Sendable, Hashable {
    /// Whether a replay of it to the page is admitted (no entry refused).
    public var applicable: Bool
    /// Why not: one line per refused entry (or the template's other page).
    public var refused: [String]
    /// Entries a replay here leaves out: registers the page does not have.
    public var leftOut: [String]

    /// Sets every field.
    public init(applicable: Bool, refused: [String], leftOut: [String]) {
        self.applicable = applicable
        self.refused = refused
        self.leftOut = leftOut
    }

    /// The summary of an admission.
    public init(_ admission: TemplateAdmission) {
        applicable = admission.isAdmissible
        refused =
            admission.otherPage != nil
            ? [admission.refusalText] : admission.refusals.map(\.description) + (admission.definitionText.map { [$0] } ?? [])
        leftOut = admission.leftOut.map(\.registerId)
    }

    /// `not applicable here: a: …; b: …` (entries refused for want of a layout named once); nil when applicable.
    public var text: String? {
        applicable ? nil : "not applicable here: " + refused.joined(separator: "; ")
    }
}

/// A page whose definition here differs from the one another fleet host's latest version was captured
/// against (health): which host, which version, and whether that version still applies here.
public struct FleetPageDifference: Codable, Sendable, Hashable {
    public var pageId: String
    /// The other host.
    public var host: String
    /// Its latest version of the page (`<host>-<n>`).
    public var version: String
    /// The page hash that version was captured against (this host's page hash differs).
    public var pageHash: String
    /// Whether that version applies to this host's page: never, since it was captured against another definition
    /// (another host's version is written only under its own definition); kept for the API.
    public var applicable: Bool
    /// Why not, when not (the definition, then each refused entry).
    public var reason: String?
    /// The registers that differ between this host's page and the definition that version was captured against (nil
    /// when that definition is not published in the fleet: versions from before definitions were published).
    public var registers: [RegisterDifference]?
    /// The page's own fields that differ (title, identity, steps, "not set" convention, register order), likewise.
    public var pageFields: [FieldDifference]?
    /// Whether that version is the page's latest in the whole fleet: its definition is the fleet's, the one
    /// `lastset fleet page PAGE --take` takes.
    public var fleetLatest: Bool?

    /// Sets every field.
    public init(pageId: String, host: String, version: String, pageHash: String, applicable: Bool, reason: String?) {
        self.pageId = pageId
        self.host = host
        self.version = version
        self.pageHash = pageHash
        self.applicable = applicable
        self.reason = reason
    }
}
