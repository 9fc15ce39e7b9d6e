import LastsetFormats

/// Which Unix-socket peers get which role, by their groups (primary and supplementary).
public struct APIRolesConfig: Codable, Sendable, Hashable {
    /// Group names whose members are operators.
    public var operatorGroups: [String]?
    /// Group names whose members are viewers (the highest role wins when a peer is in several).
    public var viewerGroups: [String]?
    /// Group names whose members are administrators (root always is).
    public var administratorGroups: [String]?
    /// Group names whose members are approvers (docs/CHANGE-CONTROL.md).
    public var approverGroups: [String]?

    /// Creates the role mapping.
    public init(
        operatorGroups: [String]? = nil, viewerGroups: [String]? = nil, administratorGroups: [String]? = nil,
        approverGroups: [String]? = nil
    ) {
        self.approverGroups = approverGroups
        self.operatorGroups = operatorGroups
        self.viewerGroups = viewerGroups
        self.administratorGroups = administratorGroups
    }
}
