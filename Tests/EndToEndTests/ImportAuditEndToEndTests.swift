import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// An import, promote or delete and its audit record are one commit (issue 20). On the file store a version put
/// in place whose outcome record could not be written was answered 500 `audit_incomplete` ("archived as version
/// 2", the log showing the import as started only); now a commit that fails leaves neither: the answer is 500
/// `storage`, nothing changed, and the log holds nothing of the attempt (its failure record failed too, and the
/// answer says so).
final class ImportAuditEndToEndTests: XCTestCase {

    private func latest(_ daemon: DaemonHarness) throws -> Template {
        let r = try daemon.api("GET", "/v1/pages/heating/templates/latest")
        XCTAssertEqual(r.status, 200, r.text)
        return try daemon.decode(Template.self, r)
    }

    func testAnImportPromoteOrDeleteWhoseCommitFailsChangesNothingAndSaysSo() throws {
        let p = try pymodbusPeer(DaemonEndToEndTests.reference)
        let work = try TestPaths.temporaryDirectory(prefix: "audit-fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(walFsyncFaultSource, in: work)
        let flag = work.appendingPathComponent("wal-fsync-fails")
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(p.port!)", unit: 1, pages: ["heating"] } ],
                \(DaemonEndToEndTests.pages)
                }
                """,
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_WAL_FSYNC_EIO": flag.path])
        for hysteresis: UInt16 in [12, 20] {
            try Mbpoll.writeHolding(port: p.port!, unit: 1, address: 120, values: [hysteresis])
            let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
            XCTAssertEqual(try daemon.decode(JobInfo.self, r).capture?.archived, true, r.text)
        }
        let file = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200, file.text)
        let archive = try daemon.api("GET", "/v1/pages/heating/templates/1/file?format=ios-archive")
        XCTAssertEqual(archive.status, 200, archive.text)

        FileManager.default.createFile(atPath: flag.path, contents: nil)
        let imported = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)
        XCTAssertEqual(imported.status, 500, imported.text)
        XCTAssertTrue(imported.text.contains("\"storage\""), imported.text)
        XCTAssertTrue(imported.text.contains("errno 5"), imported.text)
        XCTAssertTrue(imported.text.contains("holds no record of this attempt"), imported.text)
        let legacy = try daemon.client.send(
            method: "POST", path: "/v1/pages/heating/templates?format=ios-archive&file=Heating&identity.model=PRS-200",
            body: archive.body)
        XCTAssertEqual(legacy.status, 500, legacy.text)
        XCTAssertTrue(legacy.text.contains("\"storage\""), legacy.text)
        let promoted = try daemon.api("POST", "/v1/pages/heating/templates/1/promote", "{}")
        XCTAssertEqual(promoted.status, 500, promoted.text)
        XCTAssertTrue(promoted.text.contains("\"storage\""), promoted.text)
        let deleted = try daemon.api("DELETE", "/v1/pages/heating/templates/2")
        XCTAssertEqual(deleted.status, 500, deleted.text)
        XCTAssertTrue(deleted.text.contains("\"storage\""), deleted.text)
        XCTAssertTrue(daemon.stderrContains("its failed record could not be written"), "logged:\n\(daemon.stderr)")
        try FileManager.default.removeItem(at: flag)

        XCTAssertEqual(try latest(daemon).version, 2, "nothing archived")
        XCTAssertEqual(try daemon.api("GET", "/v1/pages/heating/templates/2").status, 200, "nothing deleted")
        func history() throws -> [AuditRecord] {
            try daemon.rawAuditRecords().filter { [.import, .promote, .delete].contains($0.kind) }
        }
        XCTAssertEqual(try history(), [], "no record of what did not happen")
        // The failed commits do not come back when the database is opened again.
        XCTAssertEqual(daemon.stop(), 0)
        try daemon.restart()
        let listing = try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates"))
        XCTAssertEqual(listing.map(\.version), [2, 1])
        XCTAssertEqual(try history(), [])
        // A healthy disk again: the same requests do what they say, each one record.
        XCTAssertEqual(
            try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body).status, 201)
        XCTAssertEqual(try daemon.api("POST", "/v1/pages/heating/templates/1/promote", "{}").status, 201)
        XCTAssertEqual(try daemon.api("DELETE", "/v1/pages/heating/templates/2").status, 200)
        XCTAssertEqual(try history().map(\.result), [.archived, .archived, .deleted])
        XCTAssertEqual(try history().map(\.templateVersionId), ["3", "4", "2"])
        XCTAssertEqual(daemon.stop(), 0)
    }
}

/// A template file of a large page is far beyond the 64 KiB every other request body is held to: it used to
/// be refused with 413 `body_too_large`, so a 600-register template exported from one host could not be
/// imported on another. An import's body may be as large as the archive reader accepts (8 MiB); beyond,
/// 413 names the limit; every other request keeps 64 KiB.
final class LargeImportEndToEndTests: XCTestCase {
    func testATemplateFileOfALargePageImportsAndOtherBodiesKeepTheirLimit() throws {
        let count = 600
        var values: [Int: [UInt16]] = [:]
        for i in 0..<count { values[1000 + i] = [UInt16(i % 500 + 1)] }
        let p = try PymodbusPeer.startTCP(values: values)
        defer { p.stop() }
        let registers = (0..<count).map { #"{ registerId: "r\#($0)", address: \#(1000 + $0), type: "u16" }"# }
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "big", endpoint: "tcp://127.0.0.1:\(p.port!)", unit: 1, pages: ["big"] } ],
                  pages: [ { id: "big", title: "Big", registers: [ \(registers.joined(separator: ",\n")) ] } ] }
                """)
        let captured = try daemon.api("POST", "/v1/pages/big/capture?wait=1", #"{"device":"big"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, captured).capture?.version, 1, captured.text)
        let file = try daemon.api("GET", "/v1/pages/big/templates/1/file")
        XCTAssertEqual(file.status, 200)
        XCTAssertGreaterThan(file.body.count, 64 * 1024, "the test needs a file beyond the ordinary body limit")

        let imported = try daemon.client.send(method: "POST", path: "/v1/pages/big/templates", body: file.body)
        XCTAssertEqual(imported.status, 201, String(imported.text.prefix(400)))
        XCTAssertEqual(try daemon.decode(Template.self, imported).entries.count, count)

        let huge = [UInt8](repeating: 0x20, count: 8 * 1024 * 1024 + 1)
        let refused = try daemon.client.send(method: "POST", path: "/v1/pages/big/templates", body: huge)
        XCTAssertEqual(refused.status, 413, refused.text)
        XCTAssertTrue(refused.text.contains("8388608"), refused.text)
        let apply = try daemon.client.send(
            method: "POST", path: "/v1/pages/big/apply", body: [UInt8](repeating: 0x20, count: 64 * 1024 + 1))
        XCTAssertEqual(apply.status, 413, "every other request keeps the 64 KiB limit: \(apply.text)")
        XCTAssertEqual(daemon.stop(), 0)
    }
}

/// A template-file or iOS-archive import the store refuses (EIO on the fsync of its commit) archives nothing and
/// is audited `failed` with the error, in a commit of its own (on the file store the template-file import used
/// to leave its "started" record alone); when even that record cannot be committed the answer says so and the
/// daemon logs it.
final class FailedImportAuditEndToEndTests: XCTestCase {
    func testAnImportTheStoreRefusesIsAuditedAsFailed() throws {
        let p = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        defer { p.stop() }
        let work = try TestPaths.temporaryDirectory(prefix: "store-fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(walFsyncFaultSource, in: work)
        let flag = work.appendingPathComponent("wal-fsync-fails")
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(p.port!)", unit: 1, pages: ["heating"] } ],
                \(DaemonEndToEndTests.pages)
                }
                """,
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_WAL_FSYNC_EIO": flag.path])
        let captured = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, captured).capture?.version, 1, captured.text)
        let file = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200, file.text)
        let archive = try daemon.api("GET", "/v1/pages/heating/templates/1/file?format=ios-archive")
        XCTAssertEqual(archive.status, 200, archive.text)
        func versions() throws -> [Int] {
            try daemon.decode([TemplateListing].self, try daemon.api("GET", "/v1/pages/heating/templates")).map(\.version)
        }

        // The commit of the version and its record fails (one fsync refused); the failure's own record commits.
        try "1\n".write(to: flag, atomically: true, encoding: .utf8)
        let imported = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)
        XCTAssertEqual(imported.status, 500, imported.text)
        XCTAssertTrue(imported.text.contains("\"storage\""), imported.text)
        XCTAssertTrue(imported.text.contains("Input/output error"), imported.text)
        try "1\n".write(to: flag, atomically: true, encoding: .utf8)
        let legacy = try daemon.client.send(
            method: "POST", path: "/v1/pages/heating/templates?format=ios-archive&file=Heating&identity.model=PRS-200",
            body: archive.body)
        XCTAssertEqual(legacy.status, 500, legacy.text)
        XCTAssertTrue(legacy.text.contains("\"storage\""), legacy.text)
        XCTAssertEqual(try versions(), [1], "nothing archived")

        var imports = try daemon.rawAuditRecords().filter { $0.kind == .import }
        XCTAssertEqual(imports.map(\.result), [.failed, .failed], "\(imports)")
        for outcome in imports {
            XCTAssertNil(outcome.templateVersion, "a failed import claims no version")
            XCTAssertTrue(outcome.message?.contains("Input/output error") ?? false, outcome.message ?? "nil")
        }

        // The store fails and so does the failed record: still 500 storage, the answer says the log holds no
        // record of the attempt, and the daemon logs the lost record.
        FileManager.default.createFile(atPath: flag.path, contents: nil)
        let unrecorded = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)
        XCTAssertEqual(unrecorded.status, 500, unrecorded.text)
        XCTAssertTrue(unrecorded.text.contains("\"storage\""), unrecorded.text)
        XCTAssertTrue(unrecorded.text.contains("holds no record of this attempt"), unrecorded.text)
        XCTAssertTrue(
            daemon.stderrContains("its failed record could not be written"), "the lost record is logged:\n\(daemon.stderr)")
        try FileManager.default.removeItem(at: flag)
        imports = try daemon.rawAuditRecords().filter { $0.kind == .import }
        XCTAssertEqual(imports.map(\.result), [.failed, .failed], "\(imports)")
        XCTAssertEqual(try versions(), [1], "nothing archived")

        // The store heals: the same file imports as the next version, audited archived.
        let healed = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)
        XCTAssertEqual(healed.status, 201, healed.text)
        XCTAssertEqual(try daemon.decode(Template.self, healed).version, 2)
        imports = try daemon.rawAuditRecords().filter { $0.kind == .import }
        XCTAssertEqual(imports.map(\.result), [.failed, .failed, .archived], "\(imports)")
        XCTAssertEqual(daemon.stop(), 0)
    }
}
