import Glibc

/// Why a request to the daemon failed before an HTTP status was received.
public struct HTTPClientError: Error, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Equatable {
        /// The endpoint text could not be parsed.
        case invalidEndpoint
        /// The socket could not be connected (daemon not running, wrong path, permission).
        case cannotConnect
        /// The whole exchange took longer than the client's timeout.
        case timeout
        /// A send or receive failed.
        case io
        /// The reply is not valid HTTP/1.1, or ended early.
        case malformedResponse
    }

    /// The kind of failure.
    public let kind: Kind
    /// A complete human-readable message, suitable for printing as is.
    public let message: String
    /// The errno of the failed system call, when there was one.
    public let errno: Int32?

    /// The message.
    public var description: String { message }

    /// `text` refused, with what is wrong in it when known (`missing ':port'`).
    static func invalidEndpoint(_ text: String, because reason: String? = nil) -> HTTPClientError {
        HTTPClientError(
            kind: .invalidEndpoint,
            message: "invalid API endpoint \"\(text)\"\(reason.map { ": \($0)" } ?? "")"
                + " (expected a socket path, unix:PATH or http://HOST:PORT)", errno: nil)
    }

    static func cannotConnect(_ endpoint: ClientEndpoint, errno code: Int32) -> HTTPClientError {
        let hint = code == ENOENT || code == ECONNREFUSED ? " (is lastsetd running?)" : ""
        return HTTPClientError(
            kind: .cannotConnect, message: "cannot connect to \(endpoint): \(String(cString: strerror(code)))\(hint)",
            errno: code)
    }

    static func timeout(_ endpoint: ClientEndpoint, _ timeout: Duration, phase: String) -> HTTPClientError {
        HTTPClientError(kind: .timeout, message: "no complete reply from \(endpoint) within \(timeout) (\(phase))", errno: nil)
    }

    static func io(_ endpoint: ClientEndpoint, _ operation: String, errno code: Int32) -> HTTPClientError {
        HTTPClientError(
            kind: .io, message: "\(operation) \(endpoint) failed: \(String(cString: strerror(code)))", errno: code)
    }

    static func malformed(_ endpoint: ClientEndpoint, _ detail: String) -> HTTPClientError {
        HTTPClientError(kind: .malformedResponse, message: "malformed reply from \(endpoint): \(detail)", errno: nil)
    }
}
