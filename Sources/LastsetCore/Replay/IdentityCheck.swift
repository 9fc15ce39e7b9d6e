/// One identity register compared before a replay.
public struct IdentityCheck: Codable, Sendable, Hashable {
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
