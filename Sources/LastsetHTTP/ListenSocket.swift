import Glibc
import LastsetSystem

/// Creates the listening sockets handed to libmicrohttpd (which then owns and closes them).
enum ListenSocket {
    /// Binds and listens on a Unix socket path with the given mode; removes a stale socket file first.
    static func unix(path: String, mode: UInt32, backlog: Int32) throws(HTTPServerError) -> Int32 {
        guard let address = try? UnixSocketAddress(path) else {
            throw .invalid(
                "Unix socket path \"\(path)\" is empty or longer than \(UnixSocketAddress.capacity - 1) bytes")
        }
        try removeStale(path: path, address: address)

        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket("socket(AF_UNIX) for \"\(path)\"", errno: errno) }
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .socket("bind \"\(path)\"", errno: code)
        }
        // The socket file's mode decides who may connect; the runtime directory (0750) covers the window until chmod.
        guard chmod(path, mode_t(mode)) == 0 else {
            let code = errno
            close(fd)
            unlink(path)
            throw .socket("chmod \(String(mode, radix: 8)) \"\(path)\"", errno: code)
        }
        try finishListening(fd, backlog: backlog, name: "\"\(path)\"", cleanupPath: path)
        return fd
    }

    /// Binds and listens on a numeric TCP address; returns the socket and the port actually bound.
    static func tcp(host: String, port: UInt16, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: UInt16) {
        guard let address = InternetSocketAddress(numericHost: host, port: port) else {
            throw .invalid("TCP listen host \"\(host)\" is not a numeric IPv4/IPv6 address or \"localhost\"")
        }
        let family = address.family

        let name = "\(host):\(port)"
        let fd = Glibc.socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .socket("socket() for \(name)", errno: errno) }
        var one: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        if family == AF_INET6 { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &one, socklen_t(MemoryLayout<Int32>.size)) }
        let bound = address.withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw .socket("bind \(name)", errno: code)
        }
        try finishListening(fd, backlog: backlog, name: name, cleanupPath: nil)

        var actual = sockaddr_storage()
        var actualLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &actualLength) }
        }
        guard named == 0 else {
            let code = errno
            close(fd)
            throw .socket("getsockname \(name)", errno: code)
        }
        let boundPort = withUnsafePointer(to: &actual) { raw -> UInt16 in
            if family == AF_INET {
                return raw.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin_port) }
            }
            return raw.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { UInt16(bigEndian: $0.pointee.sin6_port) }
        }
        return (fd, boundPort)
    }

    private static func finishListening(_ fd: Int32, backlog: Int32, name: String, cleanupPath: String?) throws(HTTPServerError) {
        // libmicrohttpd polls the listening socket and then accepts; non-blocking keeps a lost race from hanging its thread.
        let flags = fcntl(fd, F_GETFL)
        guard flags >= 0, fcntl(fd, F_SETFL, flags | O_NONBLOCK) == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            if let cleanupPath { unlink(cleanupPath) }
            throw .socket("listen \(name)", errno: code)
        }
    }

    /// Removes a socket file nobody listens on; refuses to touch a live socket or a non-socket file.
    private static func removeStale(path: String, address: UnixSocketAddress) throws(HTTPServerError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw .socket("lstat \"\(path)\"", errno: errno)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw .invalid("\"\(path)\" exists and is not a socket; refusing to replace it")
        }
        let probe = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw .socket("socket(AF_UNIX) to probe \"\(path)\"", errno: errno) }
        let connected = address.withSockaddr { connect(probe, $0, $1) }
        close(probe)
        if connected == 0 { throw .addressInUse(path) }
        guard unlink(path) == 0 || errno == ENOENT else { throw .socket("unlink stale socket \"\(path)\"", errno: errno) }
    }
}
