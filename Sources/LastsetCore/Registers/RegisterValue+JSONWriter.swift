import LastsetFormats

extension JSONWriter {
    /// `"key":` and a register value, with a run-time key.
    public mutating func field(dynamic key: String, _ value: RegisterValue) {
        self.key(dynamic: key)
        self.value(value)
    }

    /// `"key":` and a register value.
    public mutating func field(_ key: StaticString, _ value: RegisterValue) {
        self.key(key)
        self.value(value)
    }

    /// A register value as `RegisterValue`'s Codable form writes it (numbers as numbers, text as a string, bytes
    /// as `{"hex":"…"}`).
    public mutating func value(_ value: RegisterValue) {
        switch value {
        case .unsigned(let v): int(v)
        case .signed(let v): int(v)
        case .float(let v): double(v)
        case .text(let s): string(s)
        case .bytes(let b):
            beginObject()
            key("hex")
            string(b.hexString)
            endObject()
        }
    }
}

extension RegisterValue: JSONFieldValue {
    @inlinable
    public func write(to w: inout JSONWriter) { w.value(self) }
}
