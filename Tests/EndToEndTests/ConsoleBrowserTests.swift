import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetFormats
import TestSupport
import XCTest

/// The console in a real browser: Tests/browser/console_test.py (Selenium from the pinned .venv driving
/// Debian's headless chromium through chromedriver) against the real lastsetd and two lastset-sim presses;
/// afterwards mbpoll, an independent client, confirms what the console's apply wrote to press-b.
///
/// Screenshots go to a temporary directory, or to `$LASTSET_SCREENSHOTS` (`make console-screenshots` sets
/// it to docs/console).
final class ConsoleBrowserTests: XCTestCase {
    static let operatorSecret = "olga-console-operator-0123456789"
    static let viewerSecret = "vic-console-viewer-0123456789"
    static let approverSecret = "bea-console-approver-0123456789"

    func testConsoleInChromium() throws {
        for tool in ["/usr/bin/chromium", "/usr/bin/chromedriver"] {
            // Installed by scripts/setup.sh (make test): missing is a failure, never a skip.
            XCTAssertTrue(FileManager.default.isExecutableFile(atPath: tool), "\(tool) is missing: run scripts/setup.sh")
        }
        let demo = TestPaths.repoRoot.appendingPathComponent("Config/demo")
        let demoConfig = demo.appendingPathComponent("lastset.json").path
        let pressA = try SimulatorProcess.start([
            "--config", demoConfig, "--device", "press-a", "--tcp", "127.0.0.1:0", "--values",
            demo.appendingPathComponent("press-a.values.json").path,
        ])
        defer { pressA.stop() }
        let pressB = try SimulatorProcess.start([
            "--config", demoConfig, "--device", "press-b", "--tcp", "127.0.0.1:0", "--values",
            demo.appendingPathComponent("press-b.values.json").path,
        ])
        defer { pressB.stop() }
        // press-c: another blank press of the same model, polled, for the whole-machine apply (every page).
        let pressC = try SimulatorProcess.start([
            "--config", demoConfig, "--device", "press-b", "--tcp", "127.0.0.1:0", "--values",
            demo.appendingPathComponent("press-b.values.json").path,
        ])
        defer { pressC.stop() }
        // press-d: a configured press backed up every second (the as-found view), apart so that no other test's job
        // meets its backups.
        let pressD = try SimulatorProcess.start([
            "--config", demoConfig, "--device", "press-a", "--tcp", "127.0.0.1:0", "--values",
            demo.appendingPathComponent("press-a.values.json").path,
        ])
        defer { pressD.stop() }
        let port = try TestPorts.freeLoopbackPort()
        func hash(_ s: String) -> String { SHA256.hex(Array(s.utf8)) }
        var config = try String(contentsOfFile: demoConfig, encoding: .utf8)
            .replacingOccurrences(of: "tcp://127.0.0.1:15020", with: "tcp://127.0.0.1:\(pressA.port!)")
            .replacingOccurrences(of: "tcp://127.0.0.1:15021", with: "tcp://127.0.0.1:\(pressB.port!)")
            .replacingOccurrences(
                of: "  ],\n  pages: [",
                with: """
                      { id: "press-c", endpoint: "tcp://127.0.0.1:\(pressC.port!)", unit: 1, pages: ["heating", "motion"], poll: "1s", replacement: "notify" },
                      { id: "press-d", endpoint: "tcp://127.0.0.1:\(pressD.port!)", unit: 1, pages: ["heating"], backup: "1s" },
                    ],
                      pages: [
                    """)
        let api = """
              api: { tcp: { listen: "127.0.0.1:\(port)", tokens: [
                { name: "olga", role: "operator", sha256: "\(hash(Self.operatorSecret))" },
                { name: "vic", role: "viewer", sha256: "\(hash(Self.viewerSecret))" },
                { name: "bea", role: "approver", sha256: "\(hash(Self.approverSecret))" } ] } },
            """
        config = config.replacingOccurrences(of: "  version: 1,\n", with: "  version: 1,\n\(api)\n")
        // A fleet whose hub holds line-z's version of `cooling`, captured against a limit of 60 where this host's
        // page says 40 (test_8: the templates view flags it, an operator takes the fleet's definition).
        let hub = try HubRepository()
        try Self.seedCooling(hub)
        config = config.replacingOccurrences(
            of: "  version: 1,\n",
            with: "  version: 1,\n  fleet: { remote: \"\(hub.fileURL)\", interval: \"0s\", host: \"console\" },\n")
        config = config.replacingOccurrences(
            of: "    },\n  ],\n}",
            with: "    },\n    { id: \"cooling\", title: \"Cooling\", registers: [ { registerId: \"cooling.limit\", address: 300, type: \"u16\", max: 40 } ] },\n  ],\n}")
        XCTAssertTrue(config.contains("id: \"cooling\""))
        XCTAssertTrue(config.contains("listen: \"127.0.0.1:\(port)\""))
        XCTAssertTrue(config.contains("id: \"press-c\""))
        let daemon = try DaemonHarness(config: config)

        let shots =
            ProcessInfo.processInfo.environment["LASTSET_SCREENSHOTS"].flatMap { $0.isEmpty ? nil : $0 }
            ?? daemon.dir.appendingPathComponent("screenshots").path
        let log = daemon.dir.appendingPathComponent("browser.log")
        XCTAssertTrue(FileManager.default.createFile(atPath: log.path, contents: nil))
        let output = try FileHandle(forWritingTo: log)
        let python = Process()
        python.executableURL = try PymodbusPeer.python()
        python.arguments = [TestPaths.repoRoot.appendingPathComponent("Tests/browser/console_test.py").path]
        var env = ProcessInfo.processInfo.environment
        env["LASTSET_URL"] = "http://127.0.0.1:\(port)"
        env["LASTSET_OPERATOR_TOKEN"] = Self.operatorSecret
        env["LASTSET_APPROVER_TOKEN"] = Self.approverSecret
        env["LASTSET_VIEWER_TOKEN"] = Self.viewerSecret
        env["LASTSET_OPERATOR_NAME"] = "olga"
        env["LASTSET_PRESS_B_ENDPOINT"] = "tcp://127.0.0.1:\(pressB.port!)"
        env["LASTSET_PRESS_C_ENDPOINT"] = "tcp://127.0.0.1:\(pressC.port!)"
        env["LASTSET_PRESS_A_ENDPOINT"] = "tcp://127.0.0.1:\(pressA.port!)"
        env["LASTSET_PRESS_D_ENDPOINT"] = "tcp://127.0.0.1:\(pressD.port!)"
        env["LASTSET_SCREENSHOTS"] = shots
        env["SE_OFFLINE"] = "true"
        python.environment = env
        python.standardOutput = output
        python.standardError = output
        python.standardInput = FileHandle.nullDevice
        let started = Date()
        try PeerProcess.runWithCleanSignalMask(python)
        let status = python.waitForExit(timeout: 240)
        try output.close()
        let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        print(text)
        print("browser tests took \(String(format: "%.1f", Date().timeIntervalSince(started))) s; screenshots in \(shots)")
        XCTAssertEqual(status, 0, "the browser tests failed:\n\(text)\nlastsetd:\n\(daemon.stderr)")
        XCTAssertTrue(text.contains("Ran 11 tests") && text.contains("\nOK"), text)

        // mbpoll, outside everything above, reads press-b: it holds the template the console applied.
        let template = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/heating/templates/latest"))
        XCTAssertEqual(template.capturedBy, "token:olga")
        XCTAssertFalse(template.entries.isEmpty)
        for entry in template.entries {
            let words = try Mbpoll.readHolding(port: pressB.port!, unit: 1, address: entry.address, count: entry.length)
            XCTAssertEqual(words, entry.words, "press-b \(entry.registerId) at \(entry.address)")
        }
        // The whole-machine apply wrote every page of press-c, and the banner's restore each page's version last
        // verified there: mbpoll finds that version on press-c — for motion not the latest (test_9b captured a later
        // one from press-a, never applied to press-c).
        let pressCStatus = try daemon.decode(DeviceStatus.self, try daemon.api("GET", "/v1/devices/press-c"))
        let latestMotion = try daemon.decode(Template.self, try daemon.api("GET", "/v1/pages/motion/templates/latest"))
        XCTAssertNotEqual(pressCStatus.applied?["motion"]?.versionId, latestMotion.versionId.id)
        for pageId in ["heating", "motion"] {
            let versionId = try XCTUnwrap(pressCStatus.applied?[pageId]?.versionId, pageId)
            let applied = try daemon.decode(
                Template.self, try daemon.api("GET", "/v1/pages/\(pageId)/templates/\(versionId)"))
            XCTAssertFalse(applied.entries.isEmpty, pageId)
            for entry in applied.entries {
                let words = try Mbpoll.readHolding(port: pressC.port!, unit: 1, address: entry.address, count: entry.length)
                XCTAssertEqual(words, entry.words, "press-c \(entry.registerId) at \(entry.address)")
            }
        }
        let audit = try daemon.auditRecords()
        // The four-eyes change's replays (test 9) are checked there; here the console's own applies.
        let replays = audit.filter { $0.kind == .replay && $0.changeRequest == nil }
        // press-b's heating (one page), then press-c's heating and motion (apply all, in config order), twice: the
        // second time from the banner of its reset (test_9b).
        XCTAssertEqual(replays.map(\.who), Array(repeating: "token:olga", count: 5))
        XCTAssertEqual(replays.map(\.result), Array(repeating: .succeeded, count: 5))
        XCTAssertEqual(
            Set(replays.map { "\($0.device)/\($0.pageId)" }), ["press-b/heating", "press-c/heating", "press-c/motion"])
        for name in [
            "devices.png", "capture.png", "dry-run.png", "apply-confirm.png", "apply-result.png", "viewer-apply.png", "audit.png",
            "apply-all-dry-run.png", "apply-all-confirm.png", "apply-all-result.png", "devices-drift.png",
            "devices-conformance.png",
            "rollout.png", "fleet-definition.png", "change-request.png", "change-approve.png", "change-stale.png",
            "change-apply.png", "devices-reset-banner.png", "restore-dry-run.png",
        ] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: "\(shots)/\(name)"), "no screenshot \(name)")
        }
    }

    /// Pushes to `hub` line-z's version of page `cooling` and the definition it was captured against (limit 60).
    static func seedCooling(_ hub: HubRepository) throws {
        let definition = PageDefinition(
            id: "cooling", title: "Cooling",
            registers: [RegisterDefinition(registerId: "cooling.limit", address: 300, type: .u16, max: 60)])
        let page = CompiledPage(definition)
        let at = Date()
        let version = Template(
            pageId: "cooling", pageHash: page.hash, version: 1, capturedAt: at, capturedBy: "uid:1000",
            source: TemplateSource(deviceId: "press-z", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
            entries: [TemplateEntry(register: page.registers[0], words: [55], lastDate: at)], skipped: [], host: "line-z",
            archivedAt: at)
        let published = try XCTUnwrap(FleetPageDefinition(definition, pageHash: page.hash, host: "line-z"))
        let work = hub.root.appendingPathComponent("line-z")
        try HubRepository.git(["init", "-q", "-b", "main", work.path], in: hub.root)
        for (path, data) in try [
            ("templates/cooling/\(version.versionId.fileName)", TemplateFile.encode(version)),
            (published.path, published.encoded()),
        ] {
            let url = work.appendingPathComponent(path)
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: url)
        }
        try HubRepository.git(["add", "-A"], in: work)
        try HubRepository.git(["commit", "-q", "-m", "capture cooling line-z-1"], in: work)
        try HubRepository.git(["push", "-q", hub.fileURL, "HEAD:main"], in: work)
    }
}
