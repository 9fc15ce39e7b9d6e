/// Why a name cannot be a Unix socket address.
public struct UnixSocketAddressError: Error, Hashable, CustomStringConvertible {
    /// What is wrong with the name.
    public enum Reason: Sendable, Hashable {
        /// The name is empty.
        case empty
        /// The name does not fit `sun_path` (at most `UnixSocketAddress.capacity - 1` bytes).
        case tooLong
    }

    /// The name as given.
    public let name: String
    /// What is wrong with it.
    public let reason: Reason

    /// `Unix socket name "…" is empty` or `… is N bytes; at most 107 fit`.
    public var description: String {
        switch reason {
        case .empty: return "Unix socket name \"\(name)\" is empty"
        case .tooLong:
            return "Unix socket name \"\(name)\" is \(name.utf8.count) bytes; at most \(UnixSocketAddress.capacity - 1) fit"
        }
    }
}
