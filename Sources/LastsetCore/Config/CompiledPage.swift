/// A page as the engine uses it: its hash computed once, a registerId index, and each register's
/// eligibility and "not set" pattern resolved.
///
/// Built once per config load by `CompiledConfig` (or from a definition by hand in tests); capture,
/// replay, polling and the API read pages only through it.
public struct CompiledPage: Sendable {
    /// The page as declared.
    public let definition: PageDefinition
    /// `PageDefinition.hash` (with the effective "not set" convention), computed once.
    public let hash: String
    /// The registers in page (write) order.
    public let registers: [CompiledRegister]
    /// The "not set" convention in effect.
    public let unsetStyle: UnsetStyle
    /// Each register's decoding layout and "not set" pattern, by position: small values a replay reads
    /// per register (an element of `registers` is copied whole, definition and all, when read).
    public let layouts: [RegisterLayout]
    public let unsets: [UnsetPattern]
    /// What the config layers over the template on the device this page was compiled for (its overrides, its
    /// group's) and every register's tolerance: `EffectiveValue` decides each value from it. Not part of the hash.
    public let layer: OverrideLayer
    /// The page's declared reset marker, its value as words (nil: none).
    public let resetMarker: CompiledResetMarker?
    private let index: [String: Int]

    /// Compiles a page. `style` is the device's convention, used when the page declares none; `layer` the
    /// device's overrides and the tolerances (docs/OVERRIDES.md).
    public init(_ definition: PageDefinition, deviceStyle: UnsetStyle? = nil, layer: OverrideLayer = OverrideLayer()) {
        self.layer = layer
        self.definition = definition
        let style = definition.unsetStyle ?? deviceStyle ?? .maximum
        unsetStyle = style
        registers = definition.registers.enumerated().map { CompiledRegister($1, position: $0, style: style) }
        layouts = definition.registers.map(RegisterLayout.init)
        unsets = registers.map(\.unset)
        index = Dictionary(definition.registers.enumerated().map { ($1.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        resetMarker = CompiledResetMarker(definition.resetMarker, on: definition)
        hash = definition.hash(unsetStyle: definition.unsetStyle == nil && style != .maximum ? style : definition.unsetStyle)
    }

    /// The page id.
    public var id: String { definition.id }
    /// The page title.
    public var title: String? { definition.title }
    /// Identity registers (empty when none).
    public var identity: [IdentityRegister] { definition.identity ?? [] }
    /// Identification objects (FC43/14) of the identity (empty when none).
    public var identityObjects: [IdentityObject] { definition.identityObjects ?? [] }
    /// Steps before the writes (unlock).
    public var beforeWrite: [WriteStep] { definition.beforeWrite ?? [] }
    /// Steps after every write verified (commit).
    public var afterWrite: [WriteStep] { definition.afterWrite ?? [] }

    /// The register with this id.
    public func register(_ registerId: String) -> CompiledRegister? { index[registerId].map { registers[$0] } }
    /// The position of the register with this id.
    public func position(of registerId: String) -> Int? { index[registerId] }

    /// The position of the register with this id; `hint` is where it probably is (a template lists
    /// its entries in page order: one comparison instead of a hash per entry).
    public func position(of registerId: String, hint: Int) -> Int? {
        if hint >= 0 && hint < registers.count && registers[hint].definition.registerId == registerId
            && index.count == registers.count
        {
            return hint
        }
        return index[registerId]
    }

    /// Register `position`'s tolerance (nil: compared exactly).
    public func tolerance(at position: Int) -> Tolerance? {
        layer.tolerances.isEmpty ? nil : layer.tolerances[registers[position].registerId]
    }

    /// Decides the fate of a register's words (see `RegisterClassifier`).
    public func classify(_ words: [UInt16], of register: CompiledRegister) -> RegisterVerdict {
        RegisterClassifier.classify(words, register)
    }
}
