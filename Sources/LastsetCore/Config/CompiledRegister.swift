/// One register of a compiled page: its definition, its place in the page, whether a template may
/// ever hold it, and the words that mean "not set" for it.
public struct CompiledRegister: Sendable, Hashable {
    /// The register as declared.
    public let definition: RegisterDefinition
    /// Position in the page (the write order).
    public let position: Int
    /// Whether its values are archived and written at all (before looking at any value).
    public let eligibility: RegisterEligibility
    /// How its "not set" value is recognised.
    public let unset: UnsetPattern

    /// Compiles a definition at `position` under the page's "not set" convention.
    public init(_ definition: RegisterDefinition, position: Int, style: UnsetStyle = .maximum) {
        self.definition = definition
        self.position = position
        if !definition.isCloned {
            eligibility = .skipped(.notCloned)
        } else if !definition.isWritable {
            eligibility = .skipped(.readOnly)
        } else {
            eligibility = .eligible
        }
        unset = UnsetPattern(for: definition, style: style)
    }

    /// The register's id.
    public var registerId: String { definition.registerId }
    /// Its first address.
    public var address: Int { definition.address }
    /// Its length in registers.
    public var length: Int { definition.length }
    /// The span it occupies.
    public var span: AddressSpan { AddressSpan(address: definition.address, length: definition.length) }
}

/// Whether a register's values may be archived and written, decided by its declaration alone.
public enum RegisterEligibility: Sendable, Hashable {
    /// Archived when set and valid.
    case eligible
    /// Never archived nor written, whatever it holds.
    case skipped(SkipReason)
}

/// The words that mean "not set" for one register.
public struct UnsetPattern: Sendable, Hashable {
    /// Exact word sequences (wire order) that mean "not set".
    public let words: [[UInt16]]
    /// Whether any NaN also means "not set" (SunSpec floats).
    public let anyNaN: Bool

    /// The patterns of a definition: its `unset` alone when declared, else the style's.
    public init(for definition: RegisterDefinition, style: UnsetStyle) {
        if definition.unset != nil {
            words = [RegisterCodec.unsetWords(for: definition)]
            anyNaN = false
            return
        }
        let type = definition.type
        switch (style, type) {
        case (.maximum, .f32), (.maximum, .f64):
            // The largest finite value, and all bits set (a NaN: a blank EEPROM).
            words = [
                RegisterCodec.defaultUnsetWords(for: definition),
                [UInt16](repeating: 0xFFFF, count: type.registerCount),
            ]
            anyNaN = false
        case (.sunspec, .f32), (.sunspec, .f64):
            words = []
            anyNaN = true
        case (.sunspec, .s16), (.sunspec, .s32), (.sunspec, .s64):
            let bytes = [0x80] + [UInt8](repeating: 0, count: type.byteCount - 1)
            words = [RegisterCodec.wireWords(bytes, definition)]
            anyNaN = false
        default:
            words = [RegisterCodec.defaultUnsetWords(for: definition)]
            anyNaN = false
        }
        floatLayout = anyNaN ? RegisterLayout(definition) : nil
    }

    /// For `anyNaN`: how to decode the float (a layout, not the whole definition: patterns are copied
    /// per register in loops).
    private var floatLayout: RegisterLayout? = nil

    /// `matches` of words in place (a value parsed from hex into a temporary buffer).
    public func matches(_ words: UnsafeBufferPointer<UInt16>) -> Bool {
        if anyNaN { return matches(Array(words)) }
        return self.words.contains { $0.elementsEqual(words) }
    }

    /// Whether the words hold a "not set" value.
    public func matches(_ words: [UInt16]) -> Bool {
        if self.words.contains(words) { return true }
        if anyNaN, let layout = floatLayout, words.count == layout.type.registerCount,
            case .float(let d) = words.withUnsafeBufferPointer({ RegisterCodec.decode($0, layout: layout) }), d.isNaN
        {
            return true
        }
        return false
    }
}
