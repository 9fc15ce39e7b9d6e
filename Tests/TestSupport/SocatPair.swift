import Foundation
import Glibc

/// A pair of connected pseudo-terminals made by socat: a serial line for RTU tests.
public final class SocatPair: @unchecked Sendable {
    /// The socat process.
    public let process: PeerProcess
    /// Path of one end (give it to the server).
    public let serverPath: String
    /// Path of the other end (give it to the client).
    public let clientPath: String

    private init(process: PeerProcess, serverPath: String, clientPath: String) {
        self.process = process
        self.serverPath = serverPath
        self.clientPath = clientPath
    }

    /// Starts `socat -d -d pty,raw,echo=0,link=A pty,raw,echo=0,link=B` in a temp dir and waits until
    /// both links exist. `logTraffic` adds `-x`: socat logs every chunk it carries (see `bytesFromClient`).
    public static func start(timeout: TimeInterval = 5, logTraffic: Bool = false) throws(TestSupportError) -> SocatPair {
        let dir = try TestPaths.temporaryDirectory(prefix: "socat")
        let a = dir.appendingPathComponent("server").path
        let b = dir.appendingPathComponent("client").path
        let process = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/socat"),
            ["-d", "-d"] + (logTraffic ? ["-x"] : []) + ["pty,raw,echo=0,link=\(a)", "pty,raw,echo=0,link=\(b)"],
            readyPrefix: nil)
        let deadline = Date().addingTimeInterval(timeout)
        // socat reports readiness only on stderr; its links appearing is the readiness signal.
        while !(FileManager.default.fileExists(atPath: a) && FileManager.default.fileExists(atPath: b)) {
            guard process.process.isRunning, Date() < deadline else {
                process.terminate()
                throw TestSupportError("socat pty pair not ready within \(timeout) s; stderr: \(process.stderr)")
            }
            usleep(5_000)
        }
        return SocatPair(process: process, serverPath: a, clientPath: b)
    }

    /// Bytes socat carried from the client end to the server end so far (the line's own record of every
    /// frame a client sent; needs `logTraffic`). socat logs each chunk as `< DATE  length=N from=… to=…`.
    public var bytesFromClient: Int {
        process.stderr.split(separator: "\n").reduce(0) { sum, line in
            guard line.hasPrefix("< "), let field = line.split(separator: " ").first(where: { $0.hasPrefix("length=") }),
                let n = Int(field.dropFirst("length=".count))
            else { return sum }
            return sum + n
        }
    }

    /// The baud rate the client end's terminal is set to now (a pty keeps what the last `tcsetattr` set, so this
    /// is the speed the client opened the line with).
    public func clientBaud() throws(TestSupportError) -> Int {
        let fd = open(clientPath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw TestSupportError("open \(clientPath): errno \(errno)") }
        defer { close(fd) }
        var t = termios()
        guard tcgetattr(fd, &t) == 0 else { throw TestSupportError("tcgetattr \(clientPath): errno \(errno)") }
        let speed = cfgetospeed(&t)
        guard let baud = Self.speeds.first(where: { $0.1 == speed })?.0 else {
            throw TestSupportError("\(clientPath): unknown speed constant \(speed)")
        }
        return baud
    }

    /// Sets the client end's terminal speed (to tell later which speed a client opened the line with).
    public func setClientBaud(_ baud: Int) throws(TestSupportError) {
        guard let speed = Self.speeds.first(where: { $0.0 == baud })?.1 else { throw TestSupportError("baud \(baud)?") }
        let fd = open(clientPath, O_RDWR | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { throw TestSupportError("open \(clientPath): errno \(errno)") }
        defer { close(fd) }
        var t = termios()
        guard tcgetattr(fd, &t) == 0, cfsetspeed(&t, speed) == 0, tcsetattr(fd, TCSANOW, &t) == 0 else {
            throw TestSupportError("setting \(clientPath) to \(baud) baud: errno \(errno)")
        }
    }

    private static let speeds: [(Int, speed_t)] = [
        (1200, speed_t(B1200)), (2400, speed_t(B2400)), (4800, speed_t(B4800)), (9600, speed_t(B9600)),
        (19200, speed_t(B19200)), (38400, speed_t(B38400)), (57600, speed_t(B57600)), (115200, speed_t(B115200)),
    ]

    /// Stops socat (both ptys vanish).
    public func stop() { process.terminate() }
}
