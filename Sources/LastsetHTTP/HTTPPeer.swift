import Glibc

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

extension HTTPPeer {
    /// The peer of a connected socket (-1: unknown): SO_PEERCRED on a Unix socket, getpeername on TCP.
    static func of(socket fd: Int32, isUnix: Bool) -> HTTPPeer {
        if isUnix {
            // struct ucred { pid_t pid; uid_t uid; gid_t gid; } — Glibc's `ucred` is shadowed by a module name in Swift.
            var credentials: (pid: Int32, uid: UInt32, gid: UInt32) = (0, UInt32.max, UInt32.max)
            var length = socklen_t(MemoryLayout<(Int32, UInt32, UInt32)>.size)
            if fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length) != 0 {
                // Unknown credentials must never look like root: report the overflow ids.
                return .unix(uid: UInt32.max, gid: UInt32.max, pid: 0)
            }
            return .unix(uid: credentials.uid, gid: credentials.gid, pid: credentials.pid)
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard fd >= 0, named == 0 else { return .tcp(address: "unknown") }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        let family = Int32(storage.ss_family)
        withUnsafeMutablePointer(to: &storage) { raw in
            if family == AF_INET {
                raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                    _ = inet_ntop(AF_INET, &$0.pointee.sin_addr, &text, socklen_t(text.count))
                }
            } else if family == AF_INET6 {
                raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    _ = inet_ntop(AF_INET6, &$0.pointee.sin6_addr, &text, socklen_t(text.count))
                }
            }
        }
        return .tcp(address: text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }
}
