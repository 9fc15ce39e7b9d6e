import Foundation

/// One register a replay intends to write, as journaled before the first write frame.
public struct IntentRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var length: Int
    /// The template's value (decoded) and words (hex, wire order).
    public var expected: RegisterValue
    public var expectedData: String
    /// The target's value before the replay, when the snapshot read it.
    public var before: RegisterValue?
    public var beforeData: String?

    /// Sets every field.
    public init(
        registerId: String, address: Int, length: Int, expected: RegisterValue, expectedData: String,
        before: RegisterValue? = nil, beforeData: String? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.expected = expected
        self.expectedData = expectedData
        self.before = before
        self.beforeData = beforeData
    }
}
