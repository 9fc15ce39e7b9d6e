import Glibc

/// Why an `HTTPServer` could not be created or started.
public struct HTTPServerError: Error, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// Neither a Unix socket path nor a TCP listener was configured.
        case noListener
        /// A configuration value is unusable (quoted in the message).
        case invalidConfiguration
        /// A socket system call failed (errno in `errno`).
        case socket
        /// Another process is already serving on the Unix socket path.
        case addressInUse
        /// libmicrohttpd refused to start.
        case daemonStart
        /// `start()` was called on a running server.
        case alreadyStarted
    }

    /// The kind of failure.
    public let kind: Kind
    /// A human-readable message quoting the bad value.
    public let message: String
    /// The errno of the failed system call, when there was one.
    public let errno: Int32?

    /// The message, with the errno text appended when known.
    public var description: String {
        guard let errno else { return message }
        return "\(message): \(String(cString: strerror(errno)))"
    }

    static let noListener = HTTPServerError(
        kind: .noListener, message: "no listener configured (need a Unix socket path or a TCP address)", errno: nil)
    static let alreadyStarted = HTTPServerError(kind: .alreadyStarted, message: "the HTTP server is already started", errno: nil)
    static func invalid(_ message: String) -> HTTPServerError {
        HTTPServerError(kind: .invalidConfiguration, message: message, errno: nil)
    }
    static func socket(_ message: String, errno: Int32) -> HTTPServerError {
        HTTPServerError(kind: .socket, message: message, errno: errno)
    }
    static func addressInUse(_ path: String) -> HTTPServerError {
        HTTPServerError(kind: .addressInUse, message: "another process is already listening on \"\(path)\"", errno: nil)
    }
    static func daemonStart(_ listener: String) -> HTTPServerError {
        HTTPServerError(kind: .daemonStart, message: "libmicrohttpd failed to start on \(listener)", errno: nil)
    }
}
