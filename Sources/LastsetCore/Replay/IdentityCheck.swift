import LastsetFormats

/// One identity register compared before a replay.
public struct IdentityCheck: Sendable, Hashable {
    public var registerId: String
    public var expected: RegisterValue?
    public var actual: RegisterValue?
    public var matches: Bool
    public var message: String?

    public init(
        registerId: String, expected: RegisterValue? = nil, actual: RegisterValue? = nil, matches: Bool, message: String? = nil
    ) {
        self.registerId = registerId
        self.expected = expected
        self.actual = actual
        self.matches = matches
        self.message = message
    }
}

extension IdentityCheck: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = IdentityCheck(registerId: "", matches: false)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("actual", &r.actual)
        try f.field("expected", &r.expected)
        try f.field("matches", &r.matches)
        try f.field("message", &r.message)
        try f.field("registerId", &r.registerId)
    }
}
