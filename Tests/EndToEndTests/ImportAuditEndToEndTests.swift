import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// An LD_PRELOAD library that fails writes to `audit.jsonl` with ENOSPC once the budget in the file
/// $LASTSET_FAULT_AUDIT_WRITES is spent (the file holds how many writes may still pass; no file: no fault).
/// A disk that fills up between an import's "started" record and its outcome.
private let faultLibrarySource = #"""
    #define _GNU_SOURCE
    #include <dlfcn.h>
    #include <errno.h>
    #include <fcntl.h>
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>
    #include <unistd.h>

    ssize_t write(int fd, const void *buf, size_t count) {
        static ssize_t (*real_write)(int, const void *, size_t);
        if (!real_write) real_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
        const char *budget = getenv("LASTSET_FAULT_AUDIT_WRITES");
        if (budget && access(budget, F_OK) == 0) {
            char link[64], path[4096];
            snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
            ssize_t n = readlink(link, path, sizeof path - 1);
            path[n < 0 ? 0 : n] = 0;
            size_t len = strlen(path);
            if (len >= 12 && strcmp(path + len - 12, "/audit.jsonl") == 0) {
                int left = 0;
                FILE *f = fopen(budget, "r");
                if (f) { if (fscanf(f, "%d", &left) != 1) left = 0; fclose(f); }
                if (left <= 0) { errno = ENOSPC; return -1; }
                f = fopen(budget, "w");
                if (f) { fprintf(f, "%d\n", left - 1); fclose(f); }
            }
        }
        return real_write(fd, buf, count);
    }
    """#

/// An import whose template is archived but whose outcome record cannot be written answers with the version
/// it became and says the record is missing; it used to answer "failed" (template file) or say nothing at all
/// (iOS archive, whose outcome append was `try?`), while the new version was in place and served as the latest.
final class ImportAuditEndToEndTests: XCTestCase {
    private var peers: [PymodbusPeer] = []

    override func tearDown() {
        for p in peers { p.stop() }
        peers = []
    }

    private func latest(_ daemon: DaemonHarness) throws -> Template {
        let r = try daemon.api("GET", "/v1/pages/heating/templates/latest")
        XCTAssertEqual(r.status, 200, r.text)
        return try daemon.decode(Template.self, r)
    }

    func testAnImportWhoseOutcomeRecordCannotBeWrittenNamesTheVersionItBecame() throws {
        let p = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        peers.append(p)
        let work = try TestPaths.temporaryDirectory(prefix: "audit-fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(faultLibrarySource, in: work)
        let budget = work.appendingPathComponent("audit-writes-left")
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(p.port!)", unit: 1, pages: ["heating"] } ],
                \(DaemonEndToEndTests.pages)
                }
                """,
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_AUDIT_WRITES": budget.path])

        let captured = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, captured).capture?.version, 1, captured.text)
        let file = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200, file.text)
        let archive = try daemon.api("GET", "/v1/pages/heating/templates/1/file?format=ios-archive")
        XCTAssertEqual(archive.status, 200, archive.text)

        // A template file: the "started" record passes, the outcome does not.
        try "1\n".write(to: budget, atomically: true, encoding: .utf8)
        let imported = try daemon.client.send(method: "POST", path: "/v1/pages/heating/templates", body: file.body)
        XCTAssertEqual(imported.status, 500, imported.text)
        XCTAssertTrue(imported.text.contains("audit_incomplete"), imported.text)
        XCTAssertTrue(imported.text.contains("archived as version 2"), imported.text)
        XCTAssertEqual(try latest(daemon).version, 2, "the answer names the version that is in place")

        // An iOS archive, the same way.
        try "1\n".write(to: budget, atomically: true, encoding: .utf8)
        let legacy = try daemon.client.send(
            method: "POST", path: "/v1/pages/heating/templates?format=ios-archive&file=Heating&identity.model=PRS-200",
            body: archive.body)
        XCTAssertEqual(legacy.status, 500, legacy.text)
        XCTAssertTrue(legacy.text.contains("audit_incomplete"), legacy.text)
        XCTAssertTrue(legacy.text.contains("archived as version 3"), legacy.text)
        XCTAssertEqual(try latest(daemon).version, 3)

        // The log holds what happened: each import's "started" record, no outcome claimed for either.
        try FileManager.default.removeItem(at: budget)
        let imports = try daemon.rawAuditRecords().filter { $0.kind == .import }
        XCTAssertEqual(imports.map(\.result), [.started, .started], "\(imports)")
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// Promote and delete the same way: once the version is archived (or removed), an outcome record that
    /// cannot be written used to be answered "cannot write the audit record, nothing changed".
    func testAPromoteOrDeleteWhoseOutcomeRecordCannotBeWrittenSaysWhatWasDone() throws {
        let p = try PymodbusPeer.startTCP(values: DaemonEndToEndTests.reference)
        peers.append(p)
        let work = try TestPaths.temporaryDirectory(prefix: "audit-fault")
        defer { try? FileManager.default.removeItem(at: work) }
        let library = try buildFaultLibrary(faultLibrarySource, in: work)
        let budget = work.appendingPathComponent("audit-writes-left")
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [ { id: "press-a", endpoint: "tcp://127.0.0.1:\(p.port!)", unit: 1, pages: ["heating"] } ],
                \(DaemonEndToEndTests.pages)
                }
                """,
            environment: ["LD_PRELOAD": library, "LASTSET_FAULT_AUDIT_WRITES": budget.path])
        for hysteresis: UInt16 in [12, 20] {
            try Mbpoll.writeHolding(port: p.port!, unit: 1, address: 120, values: [hysteresis])
            let r = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
            XCTAssertEqual(try daemon.decode(JobInfo.self, r).capture?.archived, true, r.text)
        }

        try "1\n".write(to: budget, atomically: true, encoding: .utf8)
        let promoted = try daemon.api("POST", "/v1/pages/heating/templates/1/promote", "{}")
        XCTAssertEqual(promoted.status, 500, promoted.text)
        XCTAssertTrue(promoted.text.contains("audit_incomplete"), promoted.text)
        XCTAssertTrue(promoted.text.contains("promoted version 1 as version 3"), promoted.text)
        XCTAssertEqual(try latest(daemon).version, 3, "the answer names the version that is in place")

        try "1\n".write(to: budget, atomically: true, encoding: .utf8)
        let deleted = try daemon.api("DELETE", "/v1/pages/heating/templates/2")
        XCTAssertEqual(deleted.status, 500, deleted.text)
        XCTAssertTrue(deleted.text.contains("audit_incomplete"), deleted.text)
        XCTAssertTrue(deleted.text.contains("deleted version 2"), deleted.text)
        XCTAssertEqual(try daemon.api("GET", "/v1/pages/heating/templates/2").status, 404, "the version is gone")

        try FileManager.default.removeItem(at: budget)
        let history = try daemon.rawAuditRecords().filter { $0.kind == .promote || $0.kind == .delete }
        XCTAssertEqual(history.map(\.result), [.started, .started], "\(history)")
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
