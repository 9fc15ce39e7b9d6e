/// Who is on the other end of a connection.
public enum HTTPPeer: Sendable, Equatable, CustomStringConvertible {
    /// A local process on the Unix socket, with the credentials the kernel reports (SO_PEERCRED).
    case unix(uid: UInt32, gid: UInt32, pid: Int32)
    /// A TCP client, by numeric address (e.g. "127.0.0.1" or "::1").
    case tcp(address: String)

    /// "uid 1000 (pid 42)" or "tcp 127.0.0.1", for logs and audit records.
    public var description: String {
        switch self {
        case .unix(let uid, _, let pid): return "uid \(uid) (pid \(pid))"
        case .tcp(let address): return "tcp \(address)"
        }
    }
}
