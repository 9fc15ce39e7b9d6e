import LastsetCore

/// Something the server did to a connection that the daemon's log should show.
public enum HTTPServerNotice: Sendable, Equatable, CustomStringConvertible {
    /// A Unix-socket connection refused when it was accepted (answered 503 `too_many_connections` and closed).
    /// Reported once when a user reaches its share, not for each refusal after.
    case refused(peer: HTTPPeer, reason: SocketConnectionLimits.Refusal)
    /// A connection closed because its request had not all arrived within the request timeout; `started`: its
    /// request line had come (the headers or the body were still dribbling in).
    case requestTimedOut(peer: HTTPPeer, timeout: Duration, started: Bool)
    /// A kept-alive connection that started no new request within the request timeout, closed.
    case idleClosed(peer: HTTPPeer, timeout: Duration)

    /// Whether the log shows it as a warning (else debug).
    public var isWarning: Bool {
        switch self {
        case .refused, .requestTimedOut: return true
        case .idleClosed: return false
        }
    }

    /// The log line.
    public var description: String {
        switch self {
        case .refused(let peer, let reason):
            return "refused connections of \(peer) to the API socket: \(reason)"
        case .requestTimedOut(let peer, let timeout, let started):
            let what = started ? "its request's headers and body had not all arrived" : "it had not sent a request line"
            return "closed the connection of \(peer): \(what) within \(Self.seconds(timeout)) (api.requestTimeout)"
        case .idleClosed(let peer, let timeout):
            return "closed the kept-alive connection of \(peer): no new request within \(Self.seconds(timeout))"
        }
    }

    private static func seconds(_ d: Duration) -> String {
        let (s, atto) = d.components
        return atto == 0 ? "\(s) s" : "\(Double(s) + Double(atto) / 1e18) s"
    }
}
