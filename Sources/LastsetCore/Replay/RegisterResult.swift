import LastsetFormats

/// One register's line in a replay report.
public struct RegisterResult: Sendable, Hashable {
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
    /// Where `expected` comes from (template or override) and its band; nil: the template's, exact (a replay
    /// without overrides or tolerances on the page).
    public var origin: EntryOrigin?

    public init(
        registerId: String, address: Int, length: Int, status: RegisterStatus, expected: RegisterValue, expectedData: String,
        actual: RegisterValue? = nil, actualData: String? = nil, before: RegisterValue? = nil, beforeUnset: Bool? = nil,
        expectedUnset: Bool? = nil, actualUnset: Bool? = nil, exceptionCode: Int? = nil, message: String? = nil, origin: EntryOrigin? = nil
    ) {
        self.origin = origin
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

extension RegisterResult: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = RegisterResult(
        registerId: "", address: 0, length: 0, status: .notAttempted, expected: .unsigned(0), expectedData: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("actual", &r.actual)
        try f.field("actualData", &r.actualData)
        try f.field("actualUnset", &r.actualUnset)
        try f.field("address", &r.address)
        try f.field("before", &r.before)
        try f.field("beforeUnset", &r.beforeUnset)
        try f.field("exceptionCode", &r.exceptionCode)
        try f.field("expected", &r.expected)
        try f.field("expectedData", &r.expectedData)
        try f.field("expectedUnset", &r.expectedUnset)
        try f.field("length", &r.length)
        try f.field("message", &r.message)
        try f.field("origin", &r.origin)
        try f.field("registerId", &r.registerId)
        try f.field("status", &r.status)
    }
}
