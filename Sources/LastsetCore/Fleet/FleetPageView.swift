/// `GET /v1/fleet/pages/{page}` (`lastset fleet page PAGE`): this host's definition of a page against the fleet's —
/// the one the page's latest version, whichever host made it, was captured against — and what this host took from
/// the fleet.
public struct FleetPageView: Codable, Sendable, Hashable {
    public var pageId: String
    /// This host's page hash (a taken definition's, when one is in force).
    public var pageHash: String
    /// The page's latest version in the fleet (`<host>-<n>`) and the page hash it was captured against; nil when the
    /// page has no version.
    public var fleetVersion: String?
    public var fleetHash: String?
    /// Whether this host's page is the fleet's definition.
    public var same: Bool
    /// The fleet's definition as published (nil when the same, or when no host published it: versions from before
    /// definitions were published).
    public var definition: FleetPageDefinition?
    /// What differs from this host's page (nil when the same or not published).
    public var differences: PageDefinitionDifference?
    /// The fleet definition this host took, in force in place of the config's (nil: the config's is in force).
    public var taken: TakenPageDefinition?

    /// A view.
    public init(
        pageId: String, pageHash: String, fleetVersion: String?, fleetHash: String?, definition: FleetPageDefinition?,
        differences: PageDefinitionDifference?, taken: TakenPageDefinition?
    ) {
        self.pageId = pageId
        self.pageHash = pageHash
        self.fleetVersion = fleetVersion
        self.fleetHash = fleetHash
        same = fleetHash.map { $0 == pageHash } ?? true
        self.definition = definition
        self.differences = differences
        self.taken = taken
    }
}
