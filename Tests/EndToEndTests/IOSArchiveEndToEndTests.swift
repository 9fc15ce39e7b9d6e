import Foundation
import Glibc
import LastsetClient
import LastsetCore
import LastsetFormats
import TestSupport
import XCTest

/// The legacy iOS app's archives through the real `lastsetd` and `lastset`: import (identity given or
/// read from a device), refusals that archive nothing, replay of an imported template to a pymodbus
/// peer read back with mbpoll, and export back to an archive that re-imports to the same values.
final class IOSArchiveEndToEndTests: XCTestCase {
    private var files: [URL] = []

    override func tearDown() {
        for f in files { try? FileManager.default.removeItem(at: f) }
    }

    private func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let url = TestPaths.temporaryFile(name, prefix: "e2e-ios")
        try Data(bytes).write(to: url)
        files.append(url)
        return url.path
    }

    /// An archive as the app saved it for the heating page (setpoint, label, hysteresis; spare nil).
    static func archive(setpoint: String = "FF6A") -> [UInt8] {
        let date = Date(timeIntervalSinceReferenceDate: 786_000_000.25)
        let label = Array("Press 7".utf8) + [UInt8](repeating: 0, count: 9)
        let registers = [
            ArchivedRegister(
                index: 0, registerId: "heating.mode", name: "Mode", address: 100, valueData: [0, 1], lastDate: date),
            ArchivedRegister(
                index: 1, registerId: "heating.setpoint", name: "Setpoint", address: 101,
                valueData: [UInt8](hexString: setpoint), lastDate: date),
            ArchivedRegister(index: 2, registerId: "heating.spare", name: "Spare", address: 104, valueData: nil, lastDate: nil),
            ArchivedRegister(
                index: 3, registerId: "heating.label", name: "Label", address: 110, valueData: label, lastDate: date),
            ArchivedRegister(
                index: 4, registerId: "heating.hysteresis", name: "Hysteresis", address: 120, valueData: [0, 7], lastDate: date),
            ArchivedRegister(index: 5, registerId: "comm.unit", name: "Unit", address: 200, valueData: [0, 9], lastDate: date),
        ]
        return PropertyListWriter.binary(IOSArchive.plist(for: registers))
    }

    func testImportReplayAndExportThroughTheDaemonAndTheCLI() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let config =
            "{\n  version: 1,\n  devices: [\n"
            + "    { id: \"press-a\", endpoint: \"tcp://127.0.0.1:\(a.port!)\", unit: 1, pages: [\"heating\"] },\n"
            + "    { id: \"press-b\", endpoint: \"tcp://127.0.0.1:\(b.port!)\", unit: 1, pages: [\"heating\"] },\n"
            + "  ],\n\(DaemonEndToEndTests.pages)\n}\n"
        let daemon = try DaemonHarness(config: config)
        let file = try write(Self.archive(), "Heating")

        // No identity: refused, saying why; nothing archived.
        let bare = try daemon.cli(["import", file, "--page", "heating"])
        XCTAssertEqual(bare.status, 1, bare.stdout)
        XCTAssertTrue(bare.stderr.contains("declares identity registers (model)"), bare.stderr)
        XCTAssertTrue(bare.stderr.contains("--identity-from DEVICE"), bare.stderr)
        let noPage = try daemon.cli(["import", file])
        XCTAssertEqual(noPage.status, 1)
        XCTAssertTrue(
            noPage.stderr.contains("is an iOS archive, which does not say its page: give it with --page PAGE"), noPage.stderr)

        let imported = try daemon.cli(["import", file, "--page", "heating", "--identity", "model=PRS-200"])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        XCTAssertTrue(
            imported.stdout.hasPrefix("imported \(file) (iOS archive) as heating version 1 (4 entries, 2 skipped"),
            imported.stdout)
        let show = try daemon.cli(["show", "heating"])
        XCTAssertTrue(
            show.stdout.contains("imported from iOS archive e2e-ios-\(getpid())-Heating (6 entries); identity given on import"),
            show.stdout)

        // Replayed to a blank machine like any capture; mbpoll reads back what was written.
        let apply = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 100, count: 2), [1, UInt16(bitPattern: -150)])
        XCTAssertEqual(
            try Mbpoll.readHolding(port: b.port!, unit: 1, address: 110, count: 8), DaemonEndToEndTests.text("Press 7", bytes: 16)
        )
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [7])
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 200, count: 1), [42], "clone: false was written")

        // Identity read from the reference device.
        let fromDevice = try daemon.cli(["--json", "import", file, "--page", "heating", "--identity-from", "press-a"])
        XCTAssertEqual(fromDevice.status, 0, fromDevice.stderr)
        let second = try APICoding.decoder().decode(Template.self, from: Data(fromDevice.stdout.utf8))
        XCTAssertEqual(second.version, 2)
        XCTAssertEqual(second.source.identity.map(\.value), [.text("PRS-200")])
        XCTAssertEqual(second.source.identity.map(\.valueData), ["5052532D32303000"])

        // A bad entry: every problem named, nothing archived.
        let bad = try write(Self.archive(setpoint: "0400"), "Bad")
        let refused = try daemon.cli(["import", bad, "--page", "heating", "--identity", "model=PRS-200"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(
            refused.stderr.contains(#"entry 1 (registerId "heating.setpoint"): value 1024 (0x0400) above max 900"#),
            refused.stderr)
        let truncated = try write(Array(Self.archive().dropLast(5)), "Truncated")
        let cut = try daemon.cli(["import", truncated, "--page", "heating", "--identity", "model=PRS-200"])
        XCTAssertEqual(cut.status, 1)
        XCTAssertTrue(cut.stderr.contains("cannot be imported:\nnot a readable iOS archive"), cut.stderr)
        // Past the local check too: the daemon refuses the same way.
        let viaAPI = try daemon.client.send(
            method: "POST", path: "/v1/pages/heating/templates?identity.model=PRS-200&file=Bad",
            body: Self.archive(setpoint: "0400"))
        XCTAssertEqual(viaAPI.status, 422, viaAPI.text)
        XCTAssertTrue(viaAPI.text.contains("invalid_archive"), viaAPI.text)
        let listing = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.version), [2, 1])

        // Export as the app's archive, re-import: the same values.
        let out = TestPaths.temporaryFile("export.plist", prefix: "e2e-ios")
        files.append(out)
        let export = try daemon.cli(["export", "heating", "--format", "ios-archive", "--output", out.path])
        XCTAssertEqual(export.status, 0, export.stderr)
        XCTAssertEqual(Array(try Data(contentsOf: out).prefix(8)), Array("bplist00".utf8))
        let again = try daemon.cli(["--json", "import", out.path, "--page", "heating", "--identity", "model=PRS-200"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let third = try APICoding.decoder().decode(Template.self, from: Data(again.stdout.utf8))
        XCTAssertEqual(third.entries, second.entries)
        XCTAssertEqual(third.skipped, second.skipped)

        // Every import audited: the version and its record, one commit each (issue 20).
        let audit = try daemon.rawAuditRecords().filter { $0.kind == .import }
        XCTAssertEqual(audit.map(\.result), [.archived, .archived, .archived])
        XCTAssertEqual(audit.map(\.templateVersion), [1, 2, 3])
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testTenMebibyteArchiveIsRefusedBeforeAnythingIsSent() throws {
        let big = try write(Array("bplist00".utf8) + [UInt8](repeating: 0, count: 10 << 20 - 8), "Big")
        let run = try ProgramRun.built("lastset", ["--socket", "/nonexistent/api.sock", "import", big, "--page", "heating"])
        let e = run.stderr
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(e.contains("the file is 10485760 bytes; at most 8388608 bytes (8 MiB) are accepted"), e)
    }
}
