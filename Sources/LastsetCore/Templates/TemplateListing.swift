import Foundation

/// One archived version of a page's template, as listed (a corrupt file is listed with its reason).
public struct TemplateListing: Codable, Sendable, Hashable {
    public var pageId: String
    /// The version's number on the host that archived it (this host's own number without a fleet).
    public var version: Int
    /// The identifier to ask for: `3`, or `<host>-<n>` in a fleet (the same on every host).
    public var id: String
    /// The fleet host that archived it; nil without a fleet.
    public var host: String?
    /// When `host` archived it; nil without a fleet.
    public var archivedAt: Date?
    public var capturedAt: Date?
    public var sourceDevice: String?
    public var entryCount: Int?
    public var checksumOK: Bool
    /// Why the file cannot be used, when it cannot.
    public var problem: String?
    /// The page hash it was captured against (nil when the file cannot be read).
    public var pageHash: String?
    /// Whether it applies to this host's page (the one admission decision); nil when not decided (unreadable).
    public var applicable: Bool?
    /// Why it does not apply here (`not applicable here: heating.energy: layout changed since capture: …`).
    public var notApplicable: String?

    public init(
        pageId: String, version: Int, capturedAt: Date?, sourceDevice: String?, entryCount: Int?, checksumOK: Bool,
        problem: String?, host: String? = nil, archivedAt: Date? = nil, pageHash: String? = nil
    ) {
        self.pageHash = pageHash
        self.pageId = pageId
        self.version = version
        self.id = TemplateVersion(number: version, host: host, archivedAt: archivedAt).id
        self.host = host
        self.archivedAt = archivedAt
        self.capturedAt = capturedAt
        self.sourceDevice = sourceDevice
        self.entryCount = entryCount
        self.checksumOK = checksumOK
        self.problem = problem
    }
}
