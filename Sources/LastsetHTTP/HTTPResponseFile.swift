#if canImport(Glibc)
    import Glibc
#endif

/// A response body read from an open file rather than held in memory (a database backup of any size): the server
/// sends `size` bytes from offset 0 of the descriptor, which this object owns and closes when it goes away.
public final class HTTPResponseFile: Sendable, Equatable {
    /// The open descriptor (owned: closed on deinit).
    public let descriptor: Int32
    /// The bytes to send.
    public let size: UInt64

    /// Takes ownership of `descriptor`.
    public init(descriptor: Int32, size: UInt64) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }

    /// The same object (a descriptor has no other identity worth comparing).
    public static func == (lhs: HTTPResponseFile, rhs: HTTPResponseFile) -> Bool { lhs === rhs }
}
