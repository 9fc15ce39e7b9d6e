import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetFormats
import LastsetSystem
import TestSupport
import XCTest

/// Connects to a Unix socket and sends nothing: a client that holds a connection slot.
func idleUnixConnection(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
    let connected = try UnixSocketAddress(path).withSockaddr { connect(fd, $0, $1) }
    guard connected == 0 else {
        close(fd)
        throw TestSupportError("connect \(path): errno \(errno)")
    }
    return fd
}

/// Waits (up to `timeout`) until `condition` holds; polls every 20 ms.
func eventually(timeout: TimeInterval, _ condition: () throws -> Bool) rethrows -> Bool {
    let end = Date().addingTimeInterval(timeout)
    while Date() < end {
        if try condition() { return true }
        usleep(20_000)
    }
    return try condition()
}

/// The daemon under faults an operator or an attacker on the host can cause: a wedged listener, a second daemon,
/// planted symlinks, token files, serial paths.
final class HardeningEndToEndTests: XCTestCase {

    private func config(port: Int, api: String = "") -> String {
        """
        { version: 1, \(api)
          devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(port)", unit: 1, pages: ["heating"] } ],
        \(DaemonEndToEndTests.pages)
        }
        """
    }

    /// The watchdog used to follow a request through the daemon's own socket: 64 clients holding every slot stopped
    /// the pings, and under systemd the daemon was aborted with whatever replay was writing (issue 19, defect 15).
    /// Now one user holds at most its share of the socket (the rest are answered 503 at once), the held ones are
    /// closed after `api.requestTimeout`, and the pings follow the daemon's own health, never a free slot.
    func testHeldConnectionSlotsNeitherStopTheWatchdogNorOutlastTheRequestTimeout() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let daemon = try DaemonHarness(
            config: config(port: a.port!, api: #"api: { requestTimeout: "2s" },"#), environment: ["WATCHDOG_USEC": "200000"])
        XCTAssertTrue(daemon.notify.wait(for: "WATCHDOG=1", timeout: 3).found, "no watchdog ping while healthy")

        // 64 is the listener's connection limit: one user holds 8, the other 56 are refused at once.
        var held: [Int32] = []
        for _ in 0..<64 { held.append(try idleUnixConnection(daemon.socketPath)) }
        let refused = held.filter { fd in
            var buffer = [UInt8](repeating: 0, count: 4096)
            var pfd = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 2000) > 0 else { return false }
            let n = recv(fd, &buffer, buffer.count, 0)
            return n > 0 && String(decoding: buffer[0..<n], as: UTF8.self).contains("too_many_connections")
        }
        XCTAssertEqual(refused.count, 56, "connections beyond one user's share were not refused")
        for _ in 0..<5 {
            _ = daemon.notify.wait(for: "drain", timeout: 0.05)  // pings sent before
            XCTAssertTrue(daemon.notify.wait(for: "WATCHDOG=1", timeout: 1).found, "the watchdog stopped pinging")
        }
        XCTAssertTrue(
            eventually(timeout: 6) { daemon.stderr.components(separatedBy: "it had not sent a request line").count == 9 },
            "the 8 held connections were not closed after the request timeout:\n\(daemon.stderr)")
        XCTAssertEqual(try daemon.api("GET", "/v1/health").status, 200)
        XCTAssertFalse(daemon.stderr.contains("watchdog pings stopped"), daemon.stderr)
        for fd in held { close(fd) }
        XCTAssertEqual(daemon.stop(), 0)
    }
}

extension HardeningEndToEndTests {
    /// Runs `lastsetd` to completion with `arguments`; returns its exit status and stderr.
    func runDaemon(_ arguments: [String], timeout: TimeInterval = 20, executable: String? = nil) throws -> (
        status: Int32, stderr: String
    ) {
        try DaemonHarness.runToExit(arguments, timeout: timeout, executable: executable)
    }

    /// Two daemons on one data directory used to both start (and hand out the same version numbers twice): the
    /// second is refused, naming the first one's pid.
    func testSecondDaemonOnTheSameDataDirectoryIsRefusedNamingTheHolder() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let first = try DaemonHarness(config: config(port: a.port!))
        let second = try runDaemon([
            "--config", first.configURL.path, "--data-dir", first.dataDir.path, "--socket", first.dir.path + "/second.sock",
        ])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("in use by another lastsetd"), second.stderr)
        XCTAssertTrue(second.stderr.contains("pid \(first.process.processIdentifier) since 20"), second.stderr)
        XCTAssertEqual(try first.api("GET", "/v1/health").status, 200, "the first daemon is untouched")
        XCTAssertEqual(first.stop(), 0)
    }
}

extension HardeningEndToEndTests {
    /// `--check-config` used to pass a token file the daemon then refused at start; both now apply one rule
    /// (TokenFile): at least 16 characters, no access for other users, not group-writable.
    func testCheckConfigRefusesTheTokenFilesTheDaemonRefuses() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "token-rule")
        defer { try? FileManager.default.removeItem(at: dir) }
        let port = try TestPorts.freeLoopbackPort()
        let cases: [(token: String, mode: mode_t, problem: String?)] = [
            ("short-token\n", 0o600, "has 11 characters; at least 16 are needed"),
            ("s3cret-token-0123456789\n", 0o644, "has mode 0644"),
            ("s3cret-token-0123456789\n", 0o620, "has mode 0620"),
            ("s3cret-token-0123456789\n", 0o600, nil),
            ("s3cret-token-0123456789\n", 0o640, nil),
        ]
        for (index, c) in cases.enumerated() {
            let token = dir.appendingPathComponent("token\(index)")
            try c.token.write(to: token, atomically: true, encoding: .utf8)
            XCTAssertEqual(chmod(token.path, c.mode), 0)
            let configURL = dir.appendingPathComponent("lastset\(index).json")
            try config(port: 1, api: "api: { tcp: { listen: \"127.0.0.1:\(port)\", tokenFile: \"\(token.path)\" } },")
                .write(to: configURL, atomically: true, encoding: .utf8)
            let check = try runDaemon(["--check-config", "--config", configURL.path])
            if let problem = c.problem {
                let start = try runDaemon([
                    "--config", configURL.path, "--data-dir", dir.path + "/data\(index)", "--socket", dir.path + "/s\(index)",
                ])
                XCTAssertEqual(check.status, 1, "\(c): \(check.stderr)")
                XCTAssertTrue(check.stderr.contains(problem), "\(c): \(check.stderr)")
                XCTAssertTrue(check.stderr.contains(token.path), "\(c): \(check.stderr)")
                XCTAssertEqual(start.status, 1, "\(c): \(start.stderr)")
                XCTAssertTrue(start.stderr.contains(problem), "the daemon gives the same reason: \(start.stderr)")
            } else {
                XCTAssertEqual(check.status, 0, "\(c): \(check.stderr)")
            }
        }
    }

    /// A permission failure on the data directory used to read "Unknown error 513" (Foundation's error code
    /// taken for an errno); it now says what failed, with the system's own words.
    func testDataDirectoryPermissionFailureIsARealMessage() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "perm")
        defer { try? FileManager.default.removeItem(at: dir) }
        XCTAssertEqual(chmod(dir.path, 0o755), 0)
        let configURL = dir.appendingPathComponent("lastset.json")
        try config(port: 1).write(to: configURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(chmod(configURL.path, 0o644), 0)
        // A directory only root may write to, and the daemon run as nobody.
        let locked = dir.appendingPathComponent("locked")
        XCTAssertEqual(mkdir(locked.path, 0o755), 0)
        let lastsetd = try TestPaths.executable("lastsetd").path
        let run = try runDaemon(
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", lastsetd, "--config", configURL.path, "--data-dir",
                locked.path + "/data", "--socket", dir.path + "/s",
            ], executable: "/usr/bin/setpriv")
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("cannot create directory \(locked.path)/data: Permission denied"), run.stderr)
        XCTAssertFalse(run.stderr.contains("Unknown error"), run.stderr)

        // A file where a directory should be: the errno's text too.
        let file = dir.appendingPathComponent("file")
        try Data().write(to: file)
        let second = try runDaemon(["--config", configURL.path, "--data-dir", file.path + "/data", "--socket", dir.path + "/s"])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stderr.contains("\(file.path): Not a directory"), second.stderr)
        XCTAssertFalse(second.stderr.contains("Unknown error"), second.stderr)
    }

    /// An ad-hoc `rtu://` endpoint naming a regular file used to be opened read-write (libmodbus finds out it is
    /// no terminal only after opening it): it is refused before any open, and the file is untouched.
    func testAdHocRTUPathThatIsNoSerialDeviceIsRefusedBeforeOpening() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let daemon = try DaemonHarness(config: config(port: a.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let victim = daemon.dir.appendingPathComponent("victim.txt")
        try Data("keep me\n".utf8).write(to: victim)
        var before = stat()
        XCTAssertEqual(stat(victim.path, &before), 0)
        // A regular file, a directory, and character devices that are no terminal (/dev/null; /dev/watchdog
        // would arm the host's watchdog just by being opened).
        for target in [victim.path, daemon.dir.path, "/dev/null"] {
            let r = try daemon.api(
                "POST", "/v1/pages/heating/apply?wait=1", #"{"endpoint":"rtu://\#(target)?baud=19200","unit":1}"#)
            XCTAssertTrue(r.text.contains("not a serial device"), r.text)
        }
        var after = stat()
        XCTAssertEqual(stat(victim.path, &after), 0)
        XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep me\n")
        XCTAssertEqual(after.st_mtim.tv_sec, before.st_mtim.tv_sec)
        XCTAssertEqual(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec)
        XCTAssertEqual(daemon.stop(), 0)
    }
}

/// Re-signs an exported template file with every occurrence of `old` (a time) replaced by `new`: a file a
/// careless or hostile exporter could produce, with a valid checksum.
func resignedTemplateFile(_ file: [UInt8], replacing old: String, with new: String) throws -> String {
    let text = String(decoding: file, as: UTF8.self)
    guard let newline = text.firstIndex(of: "\n"), let marker = text.range(of: ",\"summary\":") else {
        throw TestSupportError("not a template file")
    }
    let header = text[..<newline]
    let summary = String(header[marker.upperBound..<header.index(before: header.endIndex)])
        .replacingOccurrences(of: old, with: new)
    var template = String(text[text.index(after: newline)...])
    if template.hasSuffix("\n") { template.removeLast() }
    template = template.replacingOccurrences(of: old, with: new)
    let checksum = SHA256.hex(Array((summary + "\n" + template).utf8)).lowercased()
    return "{\"format\":\"lastset-template\",\"checksum\":\"sha256:\(checksum)\",\"summary\":\(summary)}\n\(template)\n"
}

extension HardeningEndToEndTests {
    /// An imported `capturedAt` of `-000001-01-01T00:00:00Z` used to be stored as `00-2-12-30T…`, after which
    /// every apply of the latest answered 409; year 0001 was stored two days off. Times outside 1970…9999 are
    /// now refused with the reason, and what is accepted loads back identically.
    func testImportedTimesOutsideTheRangeAreRefusedAndAcceptedOnesLoadBackIdentically() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let daemon = try DaemonHarness(config: config(port: a.port!))
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#).status, 200)
        let exported = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        let original = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/1"))
        let stamp = TimeText.iso8601(original.capturedAt)

        for refused in ["-000001-01-01T00:00:00Z", "0001-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z"] {
            let file = try resignedTemplateFile(exported.body, replacing: stamp, with: refused)
            let r = try daemon.api("POST", "/v1/pages/heating/templates", file)
            XCTAssertEqual(r.status, 422, "\(refused): \(r.text)")
            XCTAssertTrue(r.text.contains("invalid_template"), r.text)
            XCTAssertTrue(r.text.contains(refused), "the message quotes the time: \(r.text)")
        }
        let dryRun = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-a","dryRun":true}"#)
        XCTAssertEqual(dryRun.status, 200, "the latest stays usable: \(dryRun.text)")

        for (accepted, stored) in [
            ("1970-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z"), ("9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"),
            ("2026-06-01T12:00:00+02:00", "2026-06-01T10:00:00.000Z"),
        ] {
            let file = try resignedTemplateFile(exported.body, replacing: stamp, with: accepted)
            let r = try daemon.api("POST", "/v1/pages/heating/templates", file)
            XCTAssertEqual(r.status, 201, "\(accepted): \(r.text)")
            let answered = try daemon.decode(Template.self, r)
            let loaded = try daemon.decode(
                Template.self, try daemon.api("GET", "/v1/pages/heating/templates/\(answered.version)"))
            XCTAssertEqual(loaded, answered, "\(accepted) does not load back as imported")
            XCTAssertEqual(TimeText.iso8601(loaded.capturedAt), stored)
            let latest = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-a","dryRun":true}"#)
            XCTAssertEqual(latest.status, 200, "\(accepted): \(latest.text)")
        }
        XCTAssertEqual(daemon.stop(), 0)
    }
}

extension HardeningEndToEndTests {
    /// One reply with a bad CRC on the serial line used to fail the whole capture: it is transient now — flushed
    /// and retried within the device's retry budget — and counted in the device's health and in /v1/metrics.
    func testNoisyRTULineCapturesCorrectlyAndCountsTheCRCError() throws {
        let toDaemon = try SocatPair.start()
        defer { toDaemon.stop() }
        let toSlave = try SocatPair.start()
        defer { toSlave.stop() }
        let slave = try PymodbusPeer.startRTU(
            path: toSlave.serverPath, options: ["--unit", "1"], values: DaemonEndToEndTests.reference)
        defer { slave.stop() }
        let relay = try PeerProcess.start(
            URL(fileURLWithPath: "/usr/bin/python3"),
            [
                TestPaths.peersDirectory.appendingPathComponent("noisy_relay.py").path, toDaemon.serverPath, toSlave.clientPath,
                "--corrupt", "1",
            ])
        defer { relay.terminate() }
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press-rtu", endpoint: "rtu://\(toDaemon.clientPath)?baud=19200", unit: 1, pages: ["heating"],
                               quirks: { timeout: "300ms", retries: 2 } } ],
                \(DaemonEndToEndTests.pages)
                }
                """)
        let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-rtu"}"#)
        let report = try XCTUnwrap(try daemon.decode(JobInfo.self, r).capture, r.text)
        XCTAssertNotNil(relay.waitForLine(timeout: 5) { $0 == "CORRUPTED 1" }, "the relay corrupted no reply")
        XCTAssertTrue(report.archived, "one noisy reply failed the capture: \(report)")
        let template = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/latest"))
        XCTAssertEqual(template.entries.first { $0.registerId == "heating.mode" }?.value, .unsigned(2))
        XCTAssertEqual(template.entries.first { $0.registerId == "heating.label" }?.value, .text("Line 3"))

        let device = try XCTUnwrap(try daemon.decode([DeviceStatus].self, try daemon.api("GET", "/v1/devices")).first)
        let counters = try XCTUnwrap(device.counters, "no counters in the device's health")
        XCTAssertEqual(counters.crcErrors, 1)
        XCTAssertEqual(counters.retries, 1)
        XCTAssertEqual(counters.timeouts, 0)
        XCTAssertEqual(counters.requests, report.requests, "each frame sent is counted, the retry too")

        let metrics = try daemon.api("GET", "/v1/metrics")
        XCTAssertEqual(metrics.status, 200)
        XCTAssertEqual(metrics.header("content-type"), "text/plain; version=0.0.4")
        XCTAssertTrue(metrics.text.contains("lastset_modbus_crc_errors_total{device=\"press-rtu\"} 1\n"), metrics.text)
        XCTAssertTrue(metrics.text.contains("lastset_modbus_retries_total{device=\"press-rtu\"} 1\n"), metrics.text)
        XCTAssertTrue(metrics.text.contains("# TYPE lastset_modbus_requests_total counter\n"), metrics.text)
        XCTAssertEqual(daemon.stop(), 0)
    }
}
