/// A single-register write run before or after a replay's writes (unlock, commit to EEPROM, …).
public struct WriteStep: Codable, Sendable, Hashable {
    public var address: Int
    public var value: Int

    public init(address: Int, value: Int) {
        self.address = address
        self.value = value
    }
}
