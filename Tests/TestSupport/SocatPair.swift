import Foundation

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
    /// both links exist.
    public static func start(timeout: TimeInterval = 5) throws(TestSupportError) -> SocatPair {
        let dir = try TestPaths.temporaryDirectory(prefix: "socat")
        let a = dir.appendingPathComponent("server").path
        let b = dir.appendingPathComponent("client").path
        let process = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/socat"),
            ["-d", "-d", "pty,raw,echo=0,link=\(a)", "pty,raw,echo=0,link=\(b)"], readyPrefix: nil)
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

    /// Stops socat (both ptys vanish).
    public func stop() { process.terminate() }
}
