/// A page's declared reset marker (`resetMarker` in the config; docs/REPLACEMENT.md): one of its registers whose value
/// is the device's own word that the page is back at factory values — a "parameters set" flag a factory reset clears,
/// a checksum word reset to a known value. When it was read, it alone decides whether the page is at factory values
/// (`ReconnectClassifier`); the page's other registers then hold the factory's values, nobody's change.
public struct ResetMarker: Codable, Sendable, Hashable {
    /// The page's register that carries the marker.
    public var registerId: String
    /// The value it holds after a factory reset (in the register's type, as a template value is written).
    public var value: RegisterValue

    /// Sets every field.
    public init(registerId: String, value: RegisterValue) {
        self.registerId = registerId
        self.value = value
    }
}

/// A reset marker as compiled with its page: the register and the words the value is on the wire.
public struct CompiledResetMarker: Sendable, Hashable {
    /// The page's register that carries the marker.
    public let registerId: String
    /// The words that mean "back at factory values".
    public let words: [UInt16]

    /// The marker of `page` (nil: none declared, or its register or value does not fit: the checker refused that).
    public init?(_ marker: ResetMarker?, on page: PageDefinition) {
        guard let marker, let register = page.registers.first(where: { $0.registerId == marker.registerId }),
            let words = try? RegisterCodec.encode(marker.value, as: register)
        else { return nil }
        self.registerId = marker.registerId
        self.words = words
    }

    /// What the marker says about the words read from its register: true when they are the marker's, false when
    /// other; nil when the register was not read (the marker says nothing).
    public func says(_ read: [UInt16]?) -> Bool? { read.map { $0 == words } }
}
