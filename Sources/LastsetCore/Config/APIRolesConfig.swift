import LastsetFormats

/// Which Unix-socket peers get which role, by their groups (primary and supplementary).
public struct APIRolesConfig: Codable, Sendable, Hashable {
    /// Group names whose members are operators.
    public var operatorGroups: [String]?
    /// Group names whose members are viewers (operator wins when a peer is in both).
    public var viewerGroups: [String]?

    /// Creates the role mapping.
    public init(operatorGroups: [String]? = nil, viewerGroups: [String]? = nil) {
        self.operatorGroups = operatorGroups
        self.viewerGroups = viewerGroups
    }
}
