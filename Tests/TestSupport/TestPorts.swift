import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Ports for tests whose peer needs a port number before it starts (a daemon's config, git daemon).
public enum TestPorts {
    /// A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, read back, closed).
    public static func freeLoopbackPort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = 0
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { p -> Bool in
                bind(fd, p, len) == 0 && getsockname(fd, p, &len) == 0
            }
        }
        guard bound else { throw TestSupportError("bind 127.0.0.1:0: errno \(errno)") }
        return Int(UInt16(bigEndian: addr.sin_port))
    }
}
