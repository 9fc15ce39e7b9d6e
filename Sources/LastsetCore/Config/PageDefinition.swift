/// One settings screen: registers in write order plus the steps around a replay.
public struct PageDefinition: Codable, Sendable, Hashable {
    /// Safe identifier (`[A-Za-z0-9][A-Za-z0-9._-]*`), also the template's file name.
    public var id: String
    public var title: String?
    /// Registers that must match the template's source before a replay.
    public var identity: [IdentityRegister]?
    /// Device identification objects (FC43/14) that must match before a replay; in the config they are listed in
    /// `identity` beside the registers (`{object: "ProductCode"}`).
    public var identityObjects: [IdentityObject]?
    public var beforeWrite: [WriteStep]?
    public var afterWrite: [WriteStep]?
    /// Registers in write order.
    public var registers: [RegisterDefinition]
    /// The "not set" convention of registers that declare no `unset` (default: the type's maximum).
    public var unsetStyle: UnsetStyle?
    /// What the page is for, for people (not part of the page hash).
    public var description: String?
    /// The register and value that say the page is back at factory values (docs/REPLACEMENT.md; not part of the
    /// page hash: it shapes no template).
    public var resetMarker: ResetMarker?

    public init(
        id: String, title: String? = nil, identity: [IdentityRegister]? = nil,
        beforeWrite: [WriteStep]? = nil, afterWrite: [WriteStep]? = nil,
        registers: [RegisterDefinition], unsetStyle: UnsetStyle? = nil, description: String? = nil,
        identityObjects: [IdentityObject]? = nil, resetMarker: ResetMarker? = nil
    ) {
        self.resetMarker = resetMarker
        self.identityObjects = identityObjects
        self.unsetStyle = unsetStyle
        self.description = description
        self.id = id
        self.title = title
        self.identity = identity
        self.beforeWrite = beforeWrite
        self.afterWrite = afterWrite
        self.registers = registers
    }
}
