/// One register's line in a replay report.
public struct RegisterResult: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var length: Int
    public var status: RegisterStatus
    /// The template's value.
    public var expected: RegisterValue
    public var expectedData: String
    /// Read back after the write (or the target's current value in a dry run).
    public var actual: RegisterValue?
    public var actualData: String?
    /// The target's value before the replay (nil when it could not be read).
    public var before: RegisterValue?
    /// True when the value before was the register's "not set" default.
    public var beforeUnset: Bool?
    /// True when `expected` is the "not set" default (a rollback line: the value restored).
    public var expectedUnset: Bool?
    /// True when `actual` is the "not set" default (set on rollback lines).
    public var actualUnset: Bool?
    public var exceptionCode: Int?
    public var message: String?

    public init(
        registerId: String, address: Int, length: Int, status: RegisterStatus, expected: RegisterValue, expectedData: String,
        actual: RegisterValue? = nil, actualData: String? = nil, before: RegisterValue? = nil, beforeUnset: Bool? = nil,
        expectedUnset: Bool? = nil, actualUnset: Bool? = nil, exceptionCode: Int? = nil, message: String? = nil
    ) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.status = status
        self.expected = expected
        self.expectedData = expectedData
        self.actual = actual
        self.actualData = actualData
        self.before = before
        self.beforeUnset = beforeUnset
        self.expectedUnset = expectedUnset
        self.actualUnset = actualUnset
        self.exceptionCode = exceptionCode
        self.message = message
    }
}
