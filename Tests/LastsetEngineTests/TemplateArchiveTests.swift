import Foundation
import LastsetCore
import LastsetEngine
import TestSupport
import XCTest

final class TemplateArchiveTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        dir = try TestPaths.temporaryDirectory(prefix: "archive")
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: dir)
    }

    /// The archive in `dir`'s database.
    private func openArchive(
        historyLimit: Int = 20, cacheEntryLimit: Int = 16_000, in dir: URL? = nil
    ) throws -> TemplateArchive {
        try TemplateArchive(
            database: RecordStore.open(dataDirectory: dir ?? self.dir), historyLimit: historyLimit,
            cacheEntryLimit: cacheEntryLimit)
    }

    private var databaseFile: URL { dir.appendingPathComponent(RecordStore.fileName) }

    private func template(page: String = "heating", value: UInt16 = 7, entries: Int = 3) -> Template {
        Template(
            pageId: page, pageHash: "sha256:abc", version: 0, capturedAt: Date(timeIntervalSince1970: 1_800_000_000.1234),
            capturedBy: "uid:0",
            source: TemplateSource(
                deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1,
                identity: [RecordedValue(registerId: "model", address: 0, valueData: "4142", value: .text("AB"))]),
            entries: (0..<entries).map {
                TemplateEntry(
                    registerId: "r\($0)", address: 100 + $0, length: 1, valueData: [value &+ UInt16($0)].bigEndianBytes.hexString,
                    value: .unsigned(UInt64(value) + UInt64($0)), lastDate: Date(timeIntervalSince1970: 1_800_000_000.987654),
                    layout: EntryLayout(type: .u16, wordOrder: nil, byteOrder: .big, unset: [[0xFFFF]]))
            },
            skipped: [SkippedRegister(registerId: "comm.unit", address: 200, reason: .notCloned)])
    }

    /// The decoded-template cache is bounded by register entries, not only by templates: big versions push
    /// older ones out (the newest always stays), and every version still loads, equal to what was stored.
    func testTheTemplateCacheIsBoundedByEntries() async throws {
        let archive = try openArchive(cacheEntryLimit: 2_500)
        var stored: [Template] = []
        for v in 1...6 { stored.append(try await archive.store(template(value: UInt16(v), entries: 1_000))) }
        var fill = await archive.cacheFill
        XCTAssertEqual(fill.templates, 2)
        XCTAssertEqual(fill.entries, 2_000)
        for t in stored {
            let loaded = try await archive.load(pageId: "heating", version: .number(t.version))
            XCTAssertEqual(loaded, t)
            fill = await archive.cacheFill
            XCTAssertLessThanOrEqual(fill.entries, 2_500)
        }
        // One template bigger than the budget is still kept (the newest).
        _ = try await archive.store(template(value: 9, entries: 3_000))
        fill = await archive.cacheFill
        XCTAssertEqual(fill.templates, 1)
        XCTAssertEqual(fill.entries, 3_000)
        // Removing and pruning forget their entries.
        _ = try await archive.remove(pageId: "heating", version: .latest)
        fill = await archive.cacheFill
        XCTAssertEqual(fill.templates, 0)
        XCTAssertEqual(fill.entries, 0)
    }

    /// A version and its audit record are one commit: both are there once `store` returns; a store whose commit
    /// cannot be made (the database closed under it) archives nothing, records nothing, and gives its number back.
    func testAVersionAndItsRecordAreOneCommitAndAFailedOneLeavesNeither() async throws {
        let database = try RecordStore.open(dataDirectory: dir)
        let archive = try TemplateArchive(database: database)
        let audit = AuditLog(database: database)
        @Sendable func record(_ t: Template) -> AuditRecord {
            AuditRecord(
                time: Date(), kind: .capture, who: "uid:0", pageId: t.pageId, device: "press-1", endpoint: t.source.endpoint,
                unit: 1, identity: t.source.identity, templateVersion: t.version, pageHash: t.pageHash, result: .archived,
                message: nil, registers: [], job: UUID().uuidString, templateVersionId: t.versionId.id)
        }
        let first = try await archive.store(template(value: 1), record: record)
        XCTAssertEqual(first.version, 1)
        let logged = try await audit.read()
        XCTAssertEqual(logged.records.map(\.templateVersionId), ["1"])
        let before = database.statistics.commits
        _ = try await archive.store(template(value: 2), record: record)
        XCTAssertEqual(database.statistics.commits, before + 1, "the version and its record: one commit")

        database.close()
        do throws(ArchiveError) {
            _ = try await archive.store(template(value: 3), record: record)
            XCTFail("stored into a closed database")
        } catch {
            guard case .storage(let e) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(e.description.contains(RecordStore.fileName), e.description)
        }
        let reopened = try openArchive()
        let listed = try await reopened.list(pageId: "heating").map(\.version)
        XCTAssertEqual(listed, [2, 1], "the failed store archived nothing")
        XCTAssertEqual(
            try SQLiteShell.query(databaseFile, "SELECT templateVersionId FROM (SELECT json_extract(record, '$.templateVersionId') AS templateVersionId FROM audit_record ORDER BY seq)"),
            ["1", "2"], "and recorded nothing")
        let next = try await reopened.store(template(value: 4))
        XCTAssertEqual(next.version, 3, "its number was never taken")
    }

    func testStoreAssignsIncreasingVersionsAndLoadsThemBack() async throws {
        let archive = try openArchive()
        let v1 = try await archive.store(template(value: 1))
        let v2 = try await archive.store(template(value: 2))
        XCTAssertEqual(v1.version, 1)
        XCTAssertEqual(v2.version, 2)
        let latest = try await archive.load(pageId: "heating")
        XCTAssertEqual(latest, v2)
        let first = try await archive.load(pageId: "heating", version: 1)
        XCTAssertEqual(first.entries.map(\.value), [.unsigned(1), .unsigned(2), .unsigned(3)])
        XCTAssertEqual(first.source.identity.first?.value, .text("AB"))
        // Dates survive to the millisecond.
        XCTAssertEqual(first.entries[0].lastDate.timeIntervalSince1970, 1_800_000_000.988, accuracy: 0.0005)
        // The row holds the template file byte for byte, as export writes it.
        let exported = try await archive.exportData(pageId: "heating", version: 2)
        XCTAssertEqual(exported, TemplateFile.encode(v2))
    }

    func testHistoryIsPrunedToTheLimit() async throws {
        let archive = try openArchive(historyLimit: 3)
        for v in 1...7 { _ = try await archive.store(template(value: UInt16(v))) }
        let listed = try await archive.list(pageId: "heating").map(\.version)
        XCTAssertEqual(listed, [7, 6, 5])
        do {
            _ = try await archive.load(pageId: "heating", version: 2)
            XCTFail("pruned version loaded")
        } catch {
            XCTAssertEqual(error, .notFound(pageId: "heating", version: "2"))
        }
    }

    func testCorruptTemplateIsRefusedAndOtherPagesKeepWorking() async throws {
        let archive = try openArchive()
        _ = try await archive.store(template(page: "heating"))
        _ = try await archive.store(template(page: "cooling"))
        // A value changed in the row from outside the daemon (an administrator's write, bytes gone bad), the
        // checksum kept.
        try SQLiteShell.write(
            databaseFile,
            "UPDATE template_version SET file = CAST(replace(CAST(file AS TEXT), '\"0007\"', '\"0008\"') AS BLOB) WHERE page_id = 'heating'"
        )
        do {
            _ = try await archive.load(pageId: "heating")
            XCTFail("corrupt template loaded")
        } catch {
            guard case .corrupt(let page, let version, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(page, "heating")
            XCTAssertEqual(version, "1")
            XCTAssertTrue(reason.contains("checksum mismatch"), reason)
        }
        let listing = try await archive.list(pageId: "heating")
        XCTAssertEqual(listing.first?.checksumOK, false)
        let cooling = try await archive.load(pageId: "cooling")
        XCTAssertEqual(cooling.entries.count, 3)

        try SQLiteShell.write(databaseFile, "UPDATE template_version SET file = CAST('{ not json' AS BLOB) WHERE page_id = 'heating'")
        do {
            _ = try await archive.load(pageId: "heating")
            XCTFail("truncated template loaded")
        } catch {
            XCTAssertTrue(error.description.contains("corrupt"), error.description)
        }
    }

    func testNamesThatCouldEscapeTheDataDirectoryAreRefused() async throws {
        let archive = try openArchive()
        for bad in ["../etc", "..", ".hidden", "a/b", "", "x\u{0}y", String(repeating: "a", count: 65), "/abs"] {
            do {
                _ = try await archive.load(pageId: bad)
                XCTFail("\(bad) accepted")
            } catch {
                XCTAssertEqual(error, .invalidName(bad))
            }
            var t = template(page: bad)
            t.pageId = bad
            do {
                _ = try await archive.store(t)
                XCTFail("\(bad) stored")
            } catch {
                XCTAssertEqual(error, .invalidName(bad))
            }
        }
        let top = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix(RecordStore.fileName) }
        XCTAssertEqual(top, [], "nothing but the database is made")
        let pages = try await archive.pageIds()
        XCTAssertEqual(pages, [])
    }

    func testExportImportCarriesATemplateToAnotherSiteAndChecksThePage() async throws {
        let archive = try openArchive()
        _ = try await archive.store(template(value: 40))
        let data = try await archive.exportData(pageId: "heating")
        let siteB = try Engine(dataDirectory: dir.appendingPathComponent("site-b"))
        let page = PageDefinition(
            id: "heating", registers: (0..<3).map { RegisterDefinition(registerId: "r\($0)", address: 100 + $0, type: .u16) })
        // The import takes the capture's verdicts: a page where r1 is at most 40 refuses the template.
        var strict = page
        strict.registers[1].max = 40
        do {
            _ = try await siteB.importTemplate(data, into: strict, who: "uid:7")
            XCTFail("a template breaking the page's max was imported")
        } catch {
            XCTAssertEqual(
                error,
                .notAdmissible(
                    pageId: "heating",
                    [EntryRefusal(registerId: "r1", reason: .verdict(.invalid(.aboveMax(40)), value: .unsigned(41)))]
                ))
            XCTAssertEqual(error.description, "the template does not fit page \"heating\": r1: value 41 breaks above max 40")
        }
        let imported = try await siteB.importTemplate(data, into: page, who: "uid:7")
        XCTAssertEqual(imported.version, 1)
        let original = try await archive.load(pageId: "heating")
        XCTAssertEqual(imported.entries, original.entries)
        let audit = try await siteB.audit.read()
        XCTAssertEqual(audit.records.map(\.kind), [.import])
        XCTAssertEqual(audit.records.map(\.result), [.archived], "the intent is folded into its completion")
        XCTAssertEqual(audit.records.first?.who, "uid:7")

        var tampered = String(decoding: data, as: UTF8.self)
        tampered = tampered.replacingOccurrences(of: "press-1", with: "press-9")
        do {
            _ = try await siteB.importTemplate(Data(tampered.utf8), into: page, who: "uid:7")
            XCTFail("tampered import accepted")
        } catch {
            guard case .invalidImport(let why) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(why.contains("checksum"), why)
        }
        do {
            _ = try await siteB.importTemplate(data, into: PageDefinition(id: "cooling", registers: []), who: "uid:7")
            XCTFail("a heating template was imported into cooling")
        } catch {
            XCTAssertEqual(error, .wrongPage(expected: "cooling", found: "heating"))
        }
        let listed = try await siteB.archive.list(pageId: "heating").map(\.version)
        XCTAssertEqual(listed, [1], "refused imports archived nothing")
        let pages = try await siteB.archive.pageIds()
        XCTAssertEqual(pages, ["heating"])
    }

    /// kill -9 a writer at random instants: every version left must load, none may be torn, and each has its
    /// audit record (the version and its record are one commit: never one without the other).
    func testKillDuringArchiveWritesNeverLeavesATornTemplate() async throws {
        let stress = try TestPaths.executable("lastset-archive-stress")
        let rounds = Int(ProcessInfo.processInfo.environment["LASTSET_KILL_ROUNDS"] ?? "") ?? 60
        var storesSeen = 0
        for round in 0..<rounds {
            let process = Process()
            process.executableURL = stress
            process.arguments = [dir.path, "300"]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            // Let it get through a varying number of stores, then kill it mid-flight.
            let wanted = 1 + round % 7
            var seen = 0
            var buffer = Data()
            while seen < wanted {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                buffer.append(chunk)
                seen = buffer.split(separator: 0x0A).count
            }
            usleep(UInt32.random(in: 0...3000))
            kill(process.processIdentifier, SIGKILL)
            process.waitForExit()
            storesSeen += seen
            let database = try RecordStore.open(dataDirectory: dir)
            let archive = try TemplateArchive(database: database, historyLimit: 5)
            let listing = try await archive.list(pageId: "stress")
            XCTAssertFalse(listing.isEmpty, "round \(round): nothing archived")
            for item in listing {
                XCTAssertTrue(item.checksumOK, "round \(round): version \(item.version) torn: \(item.problem ?? "")")
            }
            let recorded = try await AuditLog(database: database).read(limit: Int.max).records.compactMap(\.templateVersion)
            XCTAssertEqual(recorded, Array(1...(recorded.last ?? 0)), "round \(round): one record per version, in order")
            XCTAssertEqual(listing.first?.version, recorded.last, "round \(round): the latest version is the last recorded")
            XCTAssertGreaterThanOrEqual(recorded.count, storesSeen, "round \(round): a store that said STORED is gone")
            database.close()
        }
        XCTAssertGreaterThan(storesSeen, rounds)
        print("kill-loop: \(rounds) rounds, \(storesSeen) stores observed before the kills")
    }
}

final class AuditLogTests: XCTestCase {
    func testRecordsRoundTripThroughTheFastWriter() async throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "audit")
        defer { try? FileManager.default.removeItem(at: dir) }
        let log = AuditLog(database: try RecordStore.open(dataDirectory: dir))
        let record = AuditRecord(
            time: Date(timeIntervalSince1970: 1_800_000_000.123), kind: .replay, who: "uid:1000", pageId: "heating",
            device: "press-b",
            endpoint: "tcp://127.0.0.1:1502", unit: 1,
            identity: [RecordedValue(registerId: "model", address: 0, valueData: "4142", value: .text("AB"))], templateVersion: 3,
            pageHash: "sha256:00", result: .failed, message: "stopped \"at\" x\nnext line",
            registers: [
                AuditRegister(registerId: "a", before: .unsigned(65535), after: .signed(-150), status: .replay(.verified)),
                AuditRegister(registerId: "b", before: nil, after: nil, status: .replay(.notAttempted)),
                AuditRegister(registerId: "c", before: .float(2.5), after: .bytes([1, 2]), status: .replay(.mismatch)),
            ])
        try await log.append(record)
        var second = record
        second.message = nil
        second.templateVersion = nil
        try await log.append(second)
        let read = try await log.read()
        XCTAssertEqual(read.unreadable, 0)
        XCTAssertEqual(read.records, [record, second])
        let rows = try SQLiteShell.query(dir.appendingPathComponent(RecordStore.fileName), "SELECT count(*) FROM audit_record")
        XCTAssertEqual(rows, ["2"], "one row per record")
    }
}

extension TemplateArchiveTests {
    /// A cached template is still checksum-checked: a stored file damaged in place (same size, as bit rot
    /// leaves it) is refused even though its decoded form is in memory.
    func testCachedTemplateIsRefusedWhenItsFileRots() async throws {
        let archive = try openArchive()
        let stored = try await archive.store(
            Template(
                pageId: "heating", pageHash: "sha256:abc", version: 0, capturedAt: Date(), capturedBy: nil,
                source: TemplateSource(deviceId: "d", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []),
                entries: [
                    TemplateEntry(
                        registerId: "r", address: 1, length: 1, valueData: "0007", value: .unsigned(7), lastDate: Date())
                ],
                skipped: []))
        _ = try await archive.load(pageId: "heating")  // cached now
        // One byte of the stored file changed in place (same length), as bit rot or a write from outside leaves it.
        try SQLiteShell.write(
            databaseFile,
            "UPDATE template_version SET file = CAST(replace(CAST(file AS TEXT), '\"0007\"', '\"0008\"') AS BLOB)")
        do {
            _ = try await archive.load(pageId: "heating", version: .number(stored.version))
            XCTFail("a rotten cached template was returned")
        } catch {
            guard case .corrupt(_, _, let reason) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("checksum"), reason)
        }
    }
}
