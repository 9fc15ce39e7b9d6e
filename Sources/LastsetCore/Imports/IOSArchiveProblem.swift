import LastsetFormats
/// One problem with an iOS archive: the entry (index in the root array) and its registerId where known.
public struct IOSArchiveProblem: Hashable, Sendable, CustomStringConvertible {
    /// Index of the entry in the archive's root array (0-based); nil for the archive as a whole.
    public var entry: Int?
    /// The entry's registerId, when it has one.
    public var registerId: String?
    /// What is wrong.
    public var message: String

    /// A problem from its parts.
    public init(entry: Int?, registerId: String?, message: String) {
        self.entry = entry
        self.registerId = registerId
        self.message = message
    }

    /// `entry 3 (registerId "heating.mode"): valueData is 4 bytes; heating.mode is u16 (2 bytes)`.
    public var description: String {
        guard let entry else { return message }
        return "entry \(entry)" + (registerId.map { " (registerId \(JSONValue.quote($0)))" } ?? "") + ": " + message
    }
}

/// Every problem that keeps an iOS archive from being imported.
public struct IOSArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The problems, in entry order.
    public var problems: [IOSArchiveProblem]
    /// Errors from a list of problems.
    public init(problems: [IOSArchiveProblem]) { self.problems = problems }
    /// An error with one archive-wide problem.
    public init(_ message: String) { problems = [IOSArchiveProblem(entry: nil, registerId: nil, message: message)] }
    /// One problem per line.
    public var description: String { problems.map(\.description).joined(separator: "\n") }
}
