import Foundation
import LastsetSystem

#if canImport(Glibc)
    import Glibc
#endif

/// A datagram socket standing in for systemd's `NOTIFY_SOCKET`: bound at a path, or (a name starting with `@`) in the
/// abstract namespace; it collects what a daemon sends.
public final class NotifyReceiver: @unchecked Sendable {
    /// The name bound, as `NOTIFY_SOCKET` gives it.
    public let path: String
    private let fd: Int32

    /// Binds `path` (or the abstract name `@…`).
    public init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        let bound = try UnixSocketAddress(path, allowingAbstract: true).withSockaddr { bind(fd, $0, $1) }
        guard bound == 0 else {
            let code = errno
            close(fd)
            throw TestSupportError("bind \(path): errno \(code)")
        }
    }

    deinit { close(fd) }

    /// The next datagram as text, or "" when none comes within `timeout`.
    public func receive(timeout: TimeInterval = 5) -> String {
        var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&pfd, 1, Int32(max(1, timeout * 1000))) > 0 else { return "" }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(fd, &buffer, buffer.count, 0)
        return count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self) : ""
    }

    /// Waits up to `timeout` for a datagram containing the line `line` (e.g. "READY=1"); returns every datagram seen.
    public func wait(for line: String, timeout: TimeInterval) -> (found: Bool, seen: [String]) {
        var seen: [String] = []
        let end = Date().addingTimeInterval(timeout)
        while Date() < end {
            let datagram = receive(timeout: end.timeIntervalSinceNow)
            guard !datagram.isEmpty else { continue }
            seen.append(datagram)
            if datagram.split(separator: "\n").contains(Substring(line)) { return (true, seen) }
        }
        return (false, seen)
    }
}
