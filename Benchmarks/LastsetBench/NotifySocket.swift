import Foundation
import Glibc

/// An AF_UNIX datagram socket bound at a path, playing systemd's side of sd_notify(3).
final class NotifySocket {
    /// The bound path (the daemon's NOTIFY_SOCKET).
    let path: String
    private let fd: Int32

    /// Binds a fresh socket at `path` (an old file there is removed).
    init(path: String) throws {
        unlink(path)
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        guard fd >= 0 else { throw BenchError("socket(AF_UNIX, SOCK_DGRAM): errno \(errno)") }
        self.path = path
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        guard path.utf8.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw BenchError("notify socket path \"\(path)\" is too long")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
        }
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard rc == 0 else { throw BenchError("bind \"\(path)\": errno \(errno)") }
    }

    deinit {
        close(fd)
        unlink(path)
    }

    /// Waits for a datagram containing the line `READY=1`; returns when it arrived, nil on timeout.
    func waitForReady(timeout: Duration) -> ContinuousClock.Instant? {
        let deadline = ContinuousClock.now + timeout
        var message = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            let left = deadline - ContinuousClock.now
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ms = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            guard poll(&pfd, 1, ms) > 0 else { continue }
            let n = recv(fd, &message, message.count, 0)
            guard n > 0 else { continue }
            let text = String(decoding: message[..<n], as: UTF8.self)
            if text.split(separator: "\n").contains("READY=1") { return .now }
        }
        return nil
    }
}
