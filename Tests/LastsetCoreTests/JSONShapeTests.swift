import Foundation
import LastsetFormats
import XCTest

@testable import LastsetCore

/// Every JSON shape the fast writer writes (the template file, audit records, journal lines, device state, job
/// bodies), one table row each: the exact bytes of a known value — the formats, journal rows and API answers as
/// they are on disk and on the wire — and the round trip through the API's decoder back to the same value.
final class JSONShapeTests: XCTestCase {
    private let t = Date(timeIntervalSince1970: 1_800_000_000.25)

    /// One row: what the fast writer made of a value, the bytes it must be, and whether it reads back.
    private struct Row {
        var name: String
        var bytes: [UInt8]
        var expected: String
        var roundTrips: () throws -> Bool
        var line: UInt
    }

    private func row<T: Codable & Equatable>(
        _ name: String, _ value: T, _ bytes: [UInt8], _ expected: String, line: UInt = #line
    ) -> Row {
        Row(
            name: name, bytes: bytes, expected: expected,
            roundTrips: { try APICoding.decoder().decode(T.self, from: Data(bytes)) == value }, line: line)
    }

    private func check(_ rows: [Row]) throws {
        for r in rows {
            let text = String(decoding: r.bytes, as: UTF8.self)
            XCTAssertEqual(text, r.expected, r.name, line: r.line)
            XCTAssertTrue(try r.roundTrips(), "\(r.name) reads back", line: r.line)
        }
    }

    // MARK: samples

    private var identity: [RecordedValue] {
        [
            RecordedValue(registerId: "model", address: 0, valueData: "5052", value: .text("PR")),
            RecordedValue(registerId: "serial", address: 2, valueData: "0001E240", value: .unsigned(123_456)),
        ]
    }

    private func result(_ id: String, _ status: RegisterStatus, full: Bool) -> RegisterResult {
        RegisterResult(
            registerId: id, address: 7, length: 2, status: status, expected: .signed(-5), expectedData: "FFFFFFFB",
            actual: full ? .float(2.5) : nil, actualData: full ? "40200000" : nil, before: full ? .text("a\"b") : nil,
            beforeUnset: full ? true : nil, expectedUnset: full ? false : nil, actualUnset: full ? true : nil,
            exceptionCode: full ? 2 : nil, message: full ? "line\nbreak\ttab\u{1}" : nil)
    }

    private var replay: ReplayReport {
        var r = ReplayReport(
            pageId: "heating", templateVersion: 3, pageHash: "sha256:ab", target: "press-b", endpoint: "tcp://127.0.0.1:1",
            unit: 1, options: ReplayOptions(dryRun: false, onError: .rollback), status: .failed, reason: "x",
            stoppedAt: "at y", warnings: ["w1", "w/2"],
            identity: [
                IdentityCheck(registerId: "model", expected: .text("A"), actual: .text("A"), matches: true),
                IdentityCheck(registerId: "gain", expected: .float(0.5), actual: .float(0.1), matches: false, message: "m"),
                IdentityCheck(registerId: "none", matches: false),
            ],
            beforeWrite: [StepResult(address: 1, value: 2, status: .ok, readBack: 2)],
            afterWrite: [StepResult(address: 3, value: 4, status: .notAttempted, message: "m")],
            registers: [result("a", .verified, full: true), result("b", .notAttempted, full: false)],
            plan: [
                PlannedRequest(function: .fc16, address: 7, count: 2, registerIds: ["a"]),
                PlannedRequest(function: .fc06, address: 9, count: 1, registerIds: ["b", "c\"d"]),
                PlannedRequest(function: .fc16, address: 10, count: 1, registerIds: []),
            ], fellBackToFC06: true,
            rollback: RollbackResult(restored: false, registers: [result("a", .mismatch, full: true)]), requests: 9,
            writeFrames: 4, lastConfirmed: "a", firstInDoubt: "b", changedLater: ["c"])
        r.templateVersionId = "line-7-3"
        r.auditJob = "0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0"
        return r
    }

    private var minimalReplay: ReplayReport {
        ReplayReport(
            pageId: "p", templateVersion: 1, pageHash: "h", target: "t", endpoint: "e", unit: 2, options: ReplayOptions(),
            status: .planned, warnings: [], identity: [], beforeWrite: [], afterWrite: [], registers: [], plan: [],
            fellBackToFC06: false, requests: 0, writeFrames: 0)
    }

    private var capture: CaptureReport {
        var c = CaptureReport(
            pageId: "heating", device: "press-a", archived: false, version: 4, pageHash: "sha256:cd", entryCount: 2,
            skipped: [SkippedRegister(registerId: "s", address: 9, reason: .unset)],
            problems: [
                CaptureProblem(registerId: "p", address: 1, valueData: "03E8", value: .unsigned(1000), rule: "above max 900"),
                CaptureProblem(
                    registerId: "q", address: 2, valueData: nil, value: nil, rule: "read failed", cause: .readFailed),
            ],
            requests: 3, error: "boom")
        c.unchanged = true
        return c
    }

    private var applyAll: ApplyAllReport {
        ApplyAllReport(
            device: "press-b", dryRun: false,
            pages: [
                PageApplyResult(pageId: "p", status: .succeeded, versionId: "2", report: minimalReplay),
                PageApplyResult(pageId: "q", status: .noTemplate, error: "no template"),
            ], stoppedAt: "q")
    }

    // MARK: the shapes

    func testJobBodies() throws {
        let jobs = [
            JobInfo(
                id: "1", kind: .apply, pageId: "heating", device: "press-b", who: "uid:0", state: .finished,
                progress: JobProgress(phase: .checkingIdentity, done: 1, total: 2), startedAt: t, finishedAt: t,
                replay: replay),
            JobInfo(
                id: "2", kind: .apply, pageId: "heating", device: "press-b", who: "uid:0", startedAt: t, replay: minimalReplay),
            JobInfo(
                id: "3", kind: .capture, pageId: "heating", device: "press-a", who: "uid:0", startedAt: t, capture: capture,
                error: "e"),
            {
                var j = JobInfo(id: "4", kind: .applyAll, pageId: "", device: "press-b", who: "token:ops", startedAt: t)
                j.applyAll = applyAll
                return j
            }(),
        ]
        try check([
            row(
                "replay report", replay, APICoding.json(replay),
                #"""
                {"afterWrite":[{"address":3,"message":"m","status":"notAttempted","value":4}],"auditJob":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","beforeWrite":[{"address":1,"readBack":2,"status":"ok","value":2}],"changedLater":["c"],"endpoint":"tcp://127.0.0.1:1","fellBackToFC06":true,"firstInDoubt":"b","identity":[{"actual":"A","expected":"A","matches":true,"registerId":"model"},{"actual":0.1,"expected":0.5,"matches":false,"message":"m","registerId":"gain"},{"matches":false,"registerId":"none"}],"lastConfirmed":"a","options":{"dryRun":false,"onError":"rollback"},"pageHash":"sha256:ab","pageId":"heating","plan":[{"address":7,"count":2,"function":"fc16","registerIds":["a"]},{"address":9,"count":1,"function":"fc06","registerIds":["b","c\"d"]},{"address":10,"count":1,"function":"fc16","registerIds":[]}],"reason":"x","registers":[
                {"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"verified"},
                {"address":7,"expected":-5,"expectedData":"FFFFFFFB","length":2,"registerId":"b","status":"notAttempted"}],"requests":9,"rollback":{"registers":[{"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"mismatch"}],"restored":false},"status":"failed","stoppedAt":"at y","target":"press-b","templateVersion":3,"templateVersionId":"line-7-3","unit":1,"warnings":["w1","w/2"],"writeFrames":4}

                """#),
            row(
                "job with a replay", jobs[0], APICoding.json(jobs[0]),

                #"""
                {"device":"press-b","finishedAt":"2027-01-15T08:00:00.250Z","id":"1","kind":"apply","pageId":"heating","progress":{"done":1,"phase":"checking identity","total":2},"replay":{"afterWrite":[{"address":3,"message":"m","status":"notAttempted","value":4}],"auditJob":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","beforeWrite":[{"address":1,"readBack":2,"status":"ok","value":2}],"changedLater":["c"],"endpoint":"tcp://127.0.0.1:1","fellBackToFC06":true,"firstInDoubt":"b","identity":[{"actual":"A","expected":"A","matches":true,"registerId":"model"},{"actual":0.1,"expected":0.5,"matches":false,"message":"m","registerId":"gain"},{"matches":false,"registerId":"none"}],"lastConfirmed":"a","options":{"dryRun":false,"onError":"rollback"},"pageHash":"sha256:ab","pageId":"heating","plan":[{"address":7,"count":2,"function":"fc16","registerIds":["a"]},{"address":9,"count":1,"function":"fc06","registerIds":["b","c\"d"]},{"address":10,"count":1,"function":"fc16","registerIds":[]}],"reason":"x","registers":[
                {"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"verified"},
                {"address":7,"expected":-5,"expectedData":"FFFFFFFB","length":2,"registerId":"b","status":"notAttempted"}],"requests":9,"rollback":{"registers":[{"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"mismatch"}],"restored":false},"status":"failed","stoppedAt":"at y","target":"press-b","templateVersion":3,"templateVersionId":"line-7-3","unit":1,"warnings":["w1","w/2"],"writeFrames":4},"startedAt":"2027-01-15T08:00:00.250Z","state":"finished","who":"uid:0"}

                """#),
            row(
                "job, minimal replay", jobs[1], APICoding.json(jobs[1]),

                #"""
                {"device":"press-b","id":"2","kind":"apply","pageId":"heating","replay":{"afterWrite":[],"beforeWrite":[],"changedLater":[],"endpoint":"e","fellBackToFC06":false,"identity":[],"options":{"dryRun":false,"onError":"stop"},"pageHash":"h","pageId":"p","plan":[],"registers":[],"requests":0,"status":"planned","target":"t","templateVersion":1,"templateVersionId":"1","unit":2,"warnings":[],"writeFrames":0},"startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"uid:0"}

                """#),
            row(
                "job with a capture", jobs[2], APICoding.json(jobs[2]),

                #"""
                {"capture":{"archived":false,"device":"press-a","entryCount":2,"error":"boom","pageHash":"sha256:cd","pageId":"heating","problems":[
                {"address":1,"cause":"invalidValue","registerId":"p","rule":"above max 900","value":1000,"valueData":"03E8"},
                {"address":2,"cause":"readFailed","registerId":"q","rule":"read failed"}],"requests":3,"skipped":[{"address":9,"reason":"unset","registerId":"s"}],"unchanged":true,"version":4,"versionId":"4"},"device":"press-a","error":"e","id":"3","kind":"capture","pageId":"heating","startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"uid:0"}

                """#),
            row(
                "job with a whole-machine apply", jobs[3], APICoding.json(jobs[3]),

                #"""
                {"applyAll":{"device":"press-b","dryRun":false,"pages":[{"pageId":"p","report":{"afterWrite":[],"beforeWrite":[],"changedLater":[],"endpoint":"e","fellBackToFC06":false,"identity":[],"options":{"dryRun":false,"onError":"stop"},"pageHash":"h","pageId":"p","plan":[],"registers":[],"requests":0,"status":"planned","target":"t","templateVersion":1,"templateVersionId":"1","unit":2,"warnings":[],"writeFrames":0},"status":"succeeded","versionId":"2"},{"error":"no template","pageId":"q","status":"noTemplate"}],"stoppedAt":"q"},"device":"press-b","id":"4","kind":"apply-all","pageId":"","startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"token:ops"}

                """#),
            row(
                "job list", jobs, APICoding.json(jobs),
                #"""
                [{"device":"press-b","finishedAt":"2027-01-15T08:00:00.250Z","id":"1","kind":"apply","pageId":"heating","progress":{"done":1,"phase":"checking identity","total":2},"replay":{"afterWrite":[{"address":3,"message":"m","status":"notAttempted","value":4}],"auditJob":"0F1E2D3C-4B5A-6978-8796-A5B4C3D2E1F0","beforeWrite":[{"address":1,"readBack":2,"status":"ok","value":2}],"changedLater":["c"],"endpoint":"tcp://127.0.0.1:1","fellBackToFC06":true,"firstInDoubt":"b","identity":[{"actual":"A","expected":"A","matches":true,"registerId":"model"},{"actual":0.1,"expected":0.5,"matches":false,"message":"m","registerId":"gain"},{"matches":false,"registerId":"none"}],"lastConfirmed":"a","options":{"dryRun":false,"onError":"rollback"},"pageHash":"sha256:ab","pageId":"heating","plan":[{"address":7,"count":2,"function":"fc16","registerIds":["a"]},{"address":9,"count":1,"function":"fc06","registerIds":["b","c\"d"]},{"address":10,"count":1,"function":"fc16","registerIds":[]}],"reason":"x","registers":[
                {"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"verified"},
                {"address":7,"expected":-5,"expectedData":"FFFFFFFB","length":2,"registerId":"b","status":"notAttempted"}],"requests":9,"rollback":{"registers":[{"actual":2.5,"actualData":"40200000","actualUnset":true,"address":7,"before":"a\"b","beforeUnset":true,"exceptionCode":2,"expected":-5,"expectedData":"FFFFFFFB","expectedUnset":false,"length":2,"message":"line\nbreak\ttab\u0001","registerId":"a","status":"mismatch"}],"restored":false},"status":"failed","stoppedAt":"at y","target":"press-b","templateVersion":3,"templateVersionId":"line-7-3","unit":1,"warnings":["w1","w/2"],"writeFrames":4},"startedAt":"2027-01-15T08:00:00.250Z","state":"finished","who":"uid:0"},{"device":"press-b","id":"2","kind":"apply","pageId":"heating","replay":{"afterWrite":[],"beforeWrite":[],"changedLater":[],"endpoint":"e","fellBackToFC06":false,"identity":[],"options":{"dryRun":false,"onError":"stop"},"pageHash":"h","pageId":"p","plan":[],"registers":[],"requests":0,"status":"planned","target":"t","templateVersion":1,"templateVersionId":"1","unit":2,"warnings":[],"writeFrames":0},"startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"uid:0"},{"capture":{"archived":false,"device":"press-a","entryCount":2,"error":"boom","pageHash":"sha256:cd","pageId":"heating","problems":[
                {"address":1,"cause":"invalidValue","registerId":"p","rule":"above max 900","value":1000,"valueData":"03E8"},
                {"address":2,"cause":"readFailed","registerId":"q","rule":"read failed"}],"requests":3,"skipped":[{"address":9,"reason":"unset","registerId":"s"}],"unchanged":true,"version":4,"versionId":"4"},"device":"press-a","error":"e","id":"3","kind":"capture","pageId":"heating","startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"uid:0"},{"applyAll":{"device":"press-b","dryRun":false,"pages":[{"pageId":"p","report":{"afterWrite":[],"beforeWrite":[],"changedLater":[],"endpoint":"e","fellBackToFC06":false,"identity":[],"options":{"dryRun":false,"onError":"stop"},"pageHash":"h","pageId":"p","plan":[],"registers":[],"requests":0,"status":"planned","target":"t","templateVersion":1,"templateVersionId":"1","unit":2,"warnings":[],"writeFrames":0},"status":"succeeded","versionId":"2"},{"error":"no template","pageId":"q","status":"noTemplate"}],"stoppedAt":"q"},"device":"press-b","id":"4","kind":"apply-all","pageId":"","startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"token:ops"}]

                """#),
        ])
    }

    /// A scan job's report is written as its Codable form, inside the job's own shape.
    func testAJobWithAScan() throws {
        var job = JobInfo(id: "5", kind: .scan, pageId: "", device: "rtu:///dev/x", who: "uid:0", startedAt: t)
        job.scan = ScanReport(
            endpoint: "e", units: [3], timeoutMs: 100,
            sweeps: [
                ScanSweep(
                    baud: 19200, found: [FoundDevice(endpoint: "e", unit: 3, answered: "registers")], probes: 1, requests: 1,
                    seconds: 0.5)
            ])
        try check([
            row(
                "job with a scan", job, APICoding.json(job),
                #"""
                {"device":"rtu:///dev/x","id":"5","kind":"scan","pageId":"","scan":{"endpoint":"e","sweeps":[{"baud":19200,"found":[{"answered":"registers","endpoint":"e","fits":[],"unit":3}],"probes":1,"requests":1,"seconds":0.5}],"timeoutMs":100,"units":[3]},"startedAt":"2027-01-15T08:00:00.250Z","state":"running","who":"uid:0"}

                """#)
        ])
    }

    /// A scan's report with every part (identification with a reserved and an extended object and one that is not
    /// text, a SunSpec chain cut short, a template fit with its checks): written by its fields' one declaration, the
    /// bytes `JSONEncoder` wrote for it before (it was encoded with `try?`, `null` in its place on a failure).
    func testAScanReportWithEveryPart() throws {
        let identification = DeviceIdentification(
            conformity: ConformityLevel(category: .extended, individualAccess: true),
            objects: [
                IdentificationObject(id: .vendorName, value: Array("ACME \"Presses\"".utf8)),
                IdentificationObject(id: .productCode, value: Array("PRS-200".utf8)),
                IdentificationObject(id: IdentificationObjectId(rawValue: 0x07), value: [0x41]),
                IdentificationObject(id: IdentificationObjectId(rawValue: 0x81), value: [0x00, 0x1F, 0xFF]),
            ])
        let fit = TemplateFit(
            pageId: "heating", versionId: "line-7-3", fits: false,
            checks: [IdentityCheck(registerId: "model", expected: .text("A"), actual: .text("B"), matches: false, message: "differs")])
        let scan = ScanReport(
            endpoint: "rtu:///dev/ttyUSB0", units: [3, 17], timeoutMs: 200,
            sweeps: [
                ScanSweep(
                    baud: 19200,
                    found: [
                        FoundDevice(
                            endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 3, answered: "registers",
                            identification: identification,
                            sunspec: SunSpecChain(
                                base: 40000, models: [.init(id: 1, address: 40002, length: 66, words: [1, 66, 0xFFFF])],
                                cut: "more than 128 models"),
                            fits: [fit]),
                        FoundDevice(
                            endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 17, answered: "exception 02",
                            identificationError: "exception 01", sunspec: SunSpecChain(base: 0)),
                    ], probes: 3, requests: 9, seconds: 0.375),
                ScanSweep(baud: nil, found: [], probes: 2, requests: 2, seconds: 1.5),
            ], error: "the line is in use with other settings")
        var w = JSONWriter()
        scan.write(to: &w)
        try check([
            row(
                "scan report", scan, w.bytes,
                #"""
                {"endpoint":"rtu:///dev/ttyUSB0","error":"the line is in use with other settings","sweeps":[{"baud":19200,"found":[{"answered":"registers","endpoint":"rtu:///dev/ttyUSB0?baud=19200","fits":[{"checks":[{"actual":"B","expected":"A","matches":false,"message":"differs","registerId":"model"}],"fits":false,"pageId":"heating","versionId":"line-7-3"}],"identification":{"conformity":{"category":"extended","individualAccess":true},"objects":[{"hex":"41434D4520225072657373657322","id":"VendorName","objectId":0,"text":"ACME \"Presses\""},{"hex":"5052532D323030","id":"ProductCode","objectId":1,"text":"PRS-200"},{"hex":"41","id":"0x07","objectId":7,"text":"A"},{"hex":"001FFF","id":"0x81","objectId":129}]},"sunspec":{"base":40000,"cut":"more than 128 models","models":[{"address":40002,"id":1,"length":66,"words":[1,66,65535]}]},"unit":3},{"answered":"exception 02","endpoint":"rtu:///dev/ttyUSB0?baud=19200","fits":[],"identificationError":"exception 01","sunspec":{"base":0,"models":[]},"unit":17}],"probes":3,"requests":9,"seconds":0.375},{"found":[],"probes":2,"requests":2,"seconds":1.5}],"timeoutMs":200,"units":[3,17]}
                """#)
        ])
    }

    /// An as-found record as the database row and the API hold it: one change a line, the flags only when true.
    func testAnAsFoundRecord() throws {
        // Read back from JSON a positive number is unsigned, whatever the register's type (valueData is the authority).
        let before = RecordedValue(registerId: "s", address: 101, valueData: "00D7", value: .unsigned(215))
        let after = RecordedValue(registerId: "s", address: 101, valueData: "00E6", value: .unsigned(230))
        let record = AsFoundRecord(
            device: "press", pageId: "heating", number: 2, takenAt: t, who: "policy:backup", job: "J", pageHash: "H",
            identity: [], values: [after],
            changes: [
                AsFoundChange(
                    registerId: "s", kind: .changed, before: before, after: after,
                    by: AsFoundAuthor(job: "R", who: "token:ops", time: t))
            ], machineChanged: true)
        var w = JSONWriter()
        record.write(to: &w)
        XCTAssertEqual(
            String(decoding: w.bytes, as: UTF8.self),
            #"""
            {"changes":[
            {"after":{"address":101,"registerId":"s","value":230,"valueData":"00E6"},"before":{"address":101,"registerId":"s","value":215,"valueData":"00D7"},"by":{"job":"R","time":"2027-01-15T08:00:00.250Z","who":"token:ops"},"kind":"changed","registerId":"s"}],"device":"press","identity":[],"job":"J","machineChanged":true,"number":2,"pageHash":"H","pageId":"heating","takenAt":"2027-01-15T08:00:00.250Z","values":[
            {"address":101,"registerId":"s","value":230,"valueData":"00E6"}],"who":"policy:backup"}
            """#)
        XCTAssertEqual(try APICoding.decoder().decode(AsFoundRecord.self, from: Data(w.bytes)), record)
    }

    /// The small parts of a replay report (identity checks, steps, options, warnings) were written by `JSONEncoder`
    /// until every part followed the shape's one declaration: an integral float there was `1`, and is now `1.0`
    /// as in the register lines (the one byte change of that move; the same number for any JSON reader).
    func testIntegralFloatInAnIdentityCheck() {
        var r = minimalReplay
        r.identity = [IdentityCheck(registerId: "gain", expected: .float(1.0), actual: .float(-2.0), matches: false)]
        r.registers = [
            RegisterResult(
                registerId: "a", address: 1, length: 2, status: .verified, expected: .float(1.0), expectedData: "3F800000")
        ]
        let text = String(decoding: APICoding.json(r), as: UTF8.self)
        XCTAssertTrue(text.contains(#""identity":[{"actual":-2.0,"expected":1.0,"matches":false,"registerId":"gain"}]"#), text)
        XCTAssertTrue(text.contains(#"{"address":1,"expected":1.0,"expectedData":"3F800000""#), text)
    }

    func testAuditRecords() throws {
        var replayRecord = AuditRecord(
            time: t, kind: .replay, who: "token:ops", pageId: "heating", device: "press-b", endpoint: "tcp://127.0.0.1:1",
            unit: 1, identity: identity, templateVersion: 3, pageHash: "sha256:ab", result: .failed, message: "x; stopped at y",
            registers: [
                AuditRegister(
                    registerId: "a", before: .unsigned(1), after: .float(2.5), status: .replay(.verified), written: .float(2.5),
                    readBack: .float(2.5), rollback: AuditRollback(restored: .unsigned(1), readBack: nil, status: .failed),
                    message: "m\"q"),
                AuditRegister(registerId: "b", before: nil, after: nil, status: .replay(.notAttempted)),
                AuditRegister(registerId: "c", before: .bytes([0xAB, 0x01]), after: .signed(-7), status: .replay(.mismatch)),
            ], job: "J1", rollback: .incomplete, writeFrames: 4, templateVersionId: "3", registersChanged: 1)
        replayRecord.beforeWrite = [StepResult(address: 1, value: 2, status: .ok, readBack: 2)]
        replayRecord.afterWrite = [StepResult(address: 3, value: 4, status: .inDoubt, message: "timed out")]
        let capture = AuditRecord(
            time: t, kind: .capture, who: "uid:1000", pageId: "heating", device: "press-a", endpoint: "rtu:///dev/ttyUSB0",
            unit: 7, identity: [], templateVersion: nil, pageHash: "sha256:cd", result: .started, message: nil,
            registers: [AuditRegister(registerId: "a", before: nil, after: .text("é\\"), status: .captured)])
        try check([
            row(
                "replay outcome record", replayRecord, fast(replayRecord),
                #"""
                {"afterWrite":[{"address":3,"message":"timed out","status":"inDoubt","value":4}],"beforeWrite":[{"address":1,"readBack":2,"status":"ok","value":2}],"device":"press-b","endpoint":"tcp://127.0.0.1:1","identity":[{"address":0,"registerId":"model","value":"PR","valueData":"5052"},{"address":2,"registerId":"serial","value":123456,"valueData":"0001E240"}],"job":"J1","kind":"replay","message":"x; stopped at y","pageHash":"sha256:ab","pageId":"heating","registers":[{"after":2.5,"before":1,"message":"m\"q","readBack":2.5,"registerId":"a","rollback":{"restored":1,"status":"failed"},"status":"verified","written":2.5},{"registerId":"b","status":"notAttempted"},{"after":-7,"before":{"hex":"AB01"},"registerId":"c","status":"mismatch"}],"registersChanged":1,"result":"failed","rollback":"incomplete","templateVersion":3,"templateVersionId":"3","time":"2027-01-15T08:00:00.250Z","unit":1,"who":"token:ops","writeFrames":4}
                """#),
            row(
                "capture intent record", capture, fast(capture),
                #"""
                {"device":"press-a","endpoint":"rtu:///dev/ttyUSB0","identity":[],"kind":"capture","pageHash":"sha256:cd","pageId":"heating","registers":[{"after":"é\\","registerId":"a","status":"captured"}],"result":"started","time":"2027-01-15T08:00:00.250Z","unit":7,"who":"uid:1000"}
                """#),
        ])
    }

    func testJournalLines() throws {
        let registers = [
            IntentRegister(
                registerId: "p.a", address: 10, length: 2, expected: .unsigned(70000), expectedData: "00011170",
                before: .unsigned(1), beforeData: "00000001"),
            IntentRegister(registerId: "p.b\"q\\", address: 12, length: 1, expected: .signed(-3), expectedData: "FFFD"),
            IntentRegister(
                registerId: "p.f", address: 13, length: 2, expected: .float(1.5), expectedData: "3FC00000",
                before: .float(-.infinity), beforeData: "FF800000"),
        ]
        let intent = ReplayIntent(
            job: "0F3A", time: t, who: "token:ops", pageId: "p", deviceId: "line-1", device: "line/1",
            endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 7, templateVersion: 3, pageHash: "abc", identity: identity,
            onError: .rollback, registers: registers, beforeWrite: [WriteStep(address: 1536, value: 6868)], afterWrite: [])
        var bare = intent
        bare.deviceId = nil
        bare.beforeWrite = nil
        bare.afterWrite = nil
        let request = PlannedRequest(function: .fc16, address: 10, count: 3, registerIds: ["p.a", "p.b\"q\\"])
        let events: [(String, ReplayEvent, String)] = [
            (
                "intent", ReplayEvent(.intent, intent: intent),
                #"""
                {"intent":{"afterWrite":[],"beforeWrite":[{"address":1536,"value":6868}],"device":"line/1","deviceId":"line-1","endpoint":"rtu:///dev/ttyUSB0?baud=19200","identity":[{"address":0,"registerId":"model","value":"PR","valueData":"5052"},{"address":2,"registerId":"serial","value":123456,"valueData":"0001E240"}],"job":"0F3A","onError":"rollback","pageHash":"abc","pageId":"p","registers":[{"address":10,"before":1,"beforeData":"00000001","expected":70000,"expectedData":"00011170","length":2,"registerId":"p.a"},{"address":12,"expected":-3,"expectedData":"FFFD","length":1,"registerId":"p.b\"q\\"},{"address":13,"before":"-inf","beforeData":"FF800000","expected":1.5,"expectedData":"3FC00000","length":2,"registerId":"p.f"}],"templateVersion":3,"time":"2027-01-15T08:00:00.250Z","unit":7,"who":"token:ops"},"kind":"intent"}
                """#
            ),
            (
                "intent, no steps", ReplayEvent(.intent, intent: bare),
                #"""
                {"intent":{"device":"line/1","endpoint":"rtu:///dev/ttyUSB0?baud=19200","identity":[{"address":0,"registerId":"model","value":"PR","valueData":"5052"},{"address":2,"registerId":"serial","value":123456,"valueData":"0001E240"}],"job":"0F3A","onError":"rollback","pageHash":"abc","pageId":"p","registers":[{"address":10,"before":1,"beforeData":"00000001","expected":70000,"expectedData":"00011170","length":2,"registerId":"p.a"},{"address":12,"expected":-3,"expectedData":"FFFD","length":1,"registerId":"p.b\"q\\"},{"address":13,"before":"-inf","beforeData":"FF800000","expected":1.5,"expectedData":"3FC00000","length":2,"registerId":"p.f"}],"templateVersion":3,"time":"2027-01-15T08:00:00.250Z","unit":7,"who":"token:ops"},"kind":"intent"}
                """#
            ),
            (
                "step",
                ReplayEvent(
                    .step, request: PlannedRequest(function: .fc06, address: 2304, count: 1, registerIds: []),
                    answer: .acknowledged, frames: 1, phase: .afterWrite),
                #"""
                {"answer":"acknowledged","frames":1,"kind":"step","phase":"afterWrite","request":{"address":2304,"count":1,"function":"fc06","registerIds":[]}}
                """#
            ),
            (
                "write", ReplayEvent(.write, request: request),
                #"""
                {"kind":"write","request":{"address":10,"count":3,"function":"fc16","registerIds":["p.a","p.b\"q\\"]}}
                """#
            ),
            (
                "answer",
                ReplayEvent(.answer, request: request, answer: .rejected, frames: 1, exceptionCode: 3, message: "illegal"),
                #"""
                {"answer":"rejected","exceptionCode":3,"frames":1,"kind":"answer","message":"illegal","request":{"address":10,"count":3,"function":"fc16","registerIds":["p.a","p.b\"q\\"]}}
                """#
            ),
            (
                "replan", ReplayEvent(.replan, request: request, requests: [request], message: "FC06 fallback"),
                #"""
                {"kind":"replan","message":"FC06 fallback","request":{"address":10,"count":3,"function":"fc16","registerIds":["p.a","p.b\"q\\"]},"requests":[{"address":10,"count":3,"function":"fc16","registerIds":["p.a","p.b\"q\\"]}]}
                """#
            ),
            (
                "check",
                ReplayEvent(
                    .check,
                    checks: [
                        JournalCheck(registerId: "p.a", data: "00011170"),
                        JournalCheck(registerId: "p.f", data: nil, message: "timed out"),
                    ]),
                #"""
                {"checks":[{"data":"00011170","registerId":"p.a"},{"message":"timed out","registerId":"p.f"}],"kind":"check"}
                """#
            ),
            (
                "final check", ReplayEvent(.finalCheck, checks: []),
                #"""
                {"checks":[],"kind":"finalCheck"}
                """#
            ),
            (
                "end", ReplayEvent(.end, message: "1 of 3 registers not verified", status: .failed),
                #"""
                {"kind":"end","message":"1 of 3 registers not verified","status":"failed"}
                """#
            ),
        ]
        try check(events.map { row($0.0, $0.1, $0.1.journalLine, $0.2) })
    }

    /// The device state's row was the one shape written with its keys in declaration order; it now sorts them as
    /// every other shape does (any JSON reader reads both; rows written before stay readable).
    func testDeviceState() throws {
        let applied = AppliedTemplate(
            version: 3, versionId: "line-7-3", pageHash: "sha256:ab", appliedAt: t, appliedBy: "uid:0", job: "J1",
            entries: [
                RecordedValue(registerId: "a", address: 1, valueData: "0001", value: .unsigned(1)),
                RecordedValue(registerId: "b", address: 2, valueData: "41", value: .text("A")),
            ])
        var both = DevicePageState(device: "press-b", pageId: "heating", applied: applied)
        both.unverified = UnverifiedMark(
            device: "press-b", pageId: "heating", since: t, job: "J2", reason: .interrupted, message: "interrupted: x")
        let noJob = DevicePageState(
            device: "d", pageId: "p",
            applied: AppliedTemplate(version: 1, pageHash: "h", appliedAt: t, appliedBy: "u", job: nil, entries: []))
        try check([
            row(
                "applied and unverified", both, fast(both),
                #"""
                {"applied":{"appliedAt":"2027-01-15T08:00:00.250Z","appliedBy":"uid:0","entries":[
                {"address":1,"registerId":"a","value":1,"valueData":"0001"},
                {"address":2,"registerId":"b","value":"A","valueData":"41"}],"job":"J1","pageHash":"sha256:ab","version":3,"versionId":"line-7-3"},"device":"press-b","pageId":"heating","unverified":{"device":"press-b","job":"J2","message":"interrupted: x","pageId":"heating","reason":"interrupted","since":"2027-01-15T08:00:00.250Z"}}
                """#),
            row(
                "applied, no job", noJob, fast(noJob),
                #"""
                {"applied":{"appliedAt":"2027-01-15T08:00:00.250Z","appliedBy":"u","entries":[],"pageHash":"h","version":1,"versionId":"1"},"device":"d","pageId":"p"}
                """#),
            row(
                "nothing known", DevicePageState(device: "d", pageId: "p"), fast(DevicePageState(device: "d", pageId: "p")),
                #"""
                {"device":"d","pageId":"p"}
                """#),
        ])
    }

    func testTemplateFile() throws {
        let layout = EntryLayout(type: .u32, wordOrder: .little, byteOrder: .big, unset: [[0xFFFF, 0xFFFF]], unsetNaN: false)
        let nanLayout = EntryLayout(type: .f32, wordOrder: nil, byteOrder: .little, unset: [], unsetNaN: true)
        var full = Template(
            pageId: "heating", pageHash: "sha256:00", version: 3, capturedAt: t, capturedBy: "uid:1000",
            source: TemplateSource(deviceId: "press-a", endpoint: "tcp://127.0.0.1:1502", unit: 7, identity: identity),
            entries: [
                TemplateEntry(
                    registerId: "a", address: 1, length: 2, valueData: "0001E240", value: .unsigned(123456),
                    lastDate: Date(timeIntervalSince1970: 5), layout: layout),
                TemplateEntry(
                    registerId: "b", address: 3, length: 2, valueData: "0000C03F", value: .float(1.5),
                    lastDate: Date(timeIntervalSince1970: 5), layout: nanLayout),
                TemplateEntry(
                    registerId: "c", address: 5, length: 1, valueData: "ABCD", value: .bytes([0xAB, 0xCD]),
                    lastDate: Date(timeIntervalSince1970: 6)),
            ],
            skipped: [
                SkippedRegister(registerId: "u", address: 9, reason: .unset),
                SkippedRegister(registerId: "r", address: 10, reason: .readOnly),
            ],
            provenance: "imported from iOS archive \"Heating\"", host: "line-7", archivedAt: t.addingTimeInterval(1))
        full.capturedBy = "uid:1000"
        let bare = Template(
            pageId: "p", pageHash: "h", version: 1, capturedAt: t, capturedBy: nil,
            source: TemplateSource(deviceId: nil, endpoint: "e", unit: 1, identity: []), entries: [], skipped: [])
        let files: [(String, Template, String)] = [
            (
                "full", full,
                #"""
                {"format":"lastset-template","checksum":"sha256:ca9af051883e75ede45ff28e55790c57b140ef76b4f9b577a01c0481b9e85084","summary":{"archivedAt":"2027-01-15T08:00:01.250Z","capturedAt":"2027-01-15T08:00:00.250Z","entries":3,"host":"line-7","pageHash":"sha256:00","pageId":"heating","source":"press-a","version":3}}
                {"archivedAt":"2027-01-15T08:00:01.250Z","capturedAt":"2027-01-15T08:00:00.250Z","capturedBy":"uid:1000","entries":[
                {"address":1,"lastDate":"1970-01-01T00:00:05.000Z","layout":{"byteOrder":"big","type":"u32","unset":["FFFFFFFF"],"wordOrder":"little"},"length":2,"registerId":"a","value":123456,"valueData":"0001E240"},
                {"address":3,"lastDate":"1970-01-01T00:00:05.000Z","layout":{"byteOrder":"little","type":"f32","unset":[],"unsetNaN":true,"wordOrder":"big"},"length":2,"registerId":"b","value":1.5,"valueData":"0000C03F"},
                {"address":5,"lastDate":"1970-01-01T00:00:06.000Z","length":1,"registerId":"c","value":{"hex":"ABCD"},"valueData":"ABCD"}],"host":"line-7","pageHash":"sha256:00","pageId":"heating","provenance":"imported from iOS archive \"Heating\"","schemaVersion":1,"skipped":[
                {"address":9,"reason":"unset","registerId":"u"},
                {"address":10,"reason":"readOnly","registerId":"r"}],"source":{"deviceId":"press-a","endpoint":"tcp://127.0.0.1:1502","identity":[{"address":0,"registerId":"model","value":"PR","valueData":"5052"},{"address":2,"registerId":"serial","value":123456,"valueData":"0001E240"}],"unit":7},"version":3}

                """#
            ),
            (
                "bare", bare,
                #"""
                {"format":"lastset-template","checksum":"sha256:5c88b458243b367a62ae8cfc6068e832739a93a114eebe3fe06f88fd439de836","summary":{"capturedAt":"2027-01-15T08:00:00.250Z","entries":0,"pageHash":"h","pageId":"p","source":"e","version":1}}
                {"capturedAt":"2027-01-15T08:00:00.250Z","entries":[],"pageHash":"h","pageId":"p","schemaVersion":1,"skipped":[],"source":{"endpoint":"e","identity":[],"unit":1},"version":1}

                """#
            ),
        ]
        for (name, template, expected) in files {
            let data = TemplateFile.encode(template)
            let text = String(decoding: data, as: UTF8.self)
            XCTAssertEqual(text, expected, name)
            XCTAssertEqual(try TemplateFile.decode(data), template, name)
        }
    }

    /// Every shape written to a file, a row or an answer.
    private static var shapes: [any JSONRecord.Type] { [
        AppliedTemplate.self, ApplyAllReport.self, AsFoundAuthor.self, AsFoundChange.self, AsFoundListing.self,
        AsFoundPageResult.self, AsFoundRecord.self, AsFoundReport.self, AuditRecord.self, AuditRegister.self, AuditRollback.self, EntryOrigin.self, Approval.self, ChangeRequest.self,
        CaptureProblem.self, CaptureReport.self, DevicePageState.self, EntryLayout.self,
        IdentityCheck.self, RecordedValue.self, IntentRegister.self, JobInfo.self, JobProgress.self, JournalCheck.self,
        PageApplyResult.self, PlannedRequest.self, RegisterResult.self, ReplayEvent.self,
        ReplayIntent.self, ReplayOptions.self, ReplayReport.self, RollbackResult.self, SkippedRegister.self,
        StepResult.self, Template.self, TemplateEntry.self, TemplateFile.Summary.self, TemplateSource.self,
        UnverifiedMark.self, WriteStep.self,
        ScanReport.self, ScanSweep.self, FoundDevice.self, TemplateFit.self, SunSpecChain.self, SunSpecChain.Model.self,
        DeviceIdentification.self, ConformityLevel.self, IdentificationObject.self,
    ] }

    /// Properties kept beside a shape's fields, never written (derived from a field).
    private static let notFields: [String: Set<String>] = ["TemplateEntry": ["hexWords"], "IdentificationObject": ["value"]]
    /// Keys written from a property in another form (an identification object's bytes as `hex` and `text`, its id
    /// also as `objectId`).
    private static let forms: [String: Set<String>] = ["IdentificationObject": ["hex", "objectId", "text"]]

    /// Each declaration lists its keys in ascending byte order (the order `JSONEncoder`'s `.sortedKeys` writes and
    /// the files have), once each, and names every stored property: a property added to a type without a field
    /// would be silently left out of its file, row or answer.
    func testEveryShapeDeclaresEachPropertyOnceInKeyOrder() {
        for shape in Self.shapes { checkDeclaration(shape) }
    }

    private func checkDeclaration<T: JSONRecord>(_ type: T.Type) {
        var keys = KeyList()
        var r = T.placeholder
        T.fields(&keys, &r)
        let name = String(describing: T.self)
        XCTAssertEqual(keys.keys, keys.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }, name)
        XCTAssertEqual(Set(keys.keys).count, keys.keys.count, "\(name): a key listed twice")
        let properties = Set(Mirror(reflecting: T.placeholder).children.compactMap(\.label))
        XCTAssertEqual(
            properties.subtracting(Self.notFields[name] ?? []), Set(keys.keys).subtracting(Self.forms[name] ?? []), name)
    }

    /// The keys a declaration lists, in its order.
    private struct KeyList: JSONFields {
        typealias Failure = Never
        var keys: [String] = []
        mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V) { keys.append(key.description) }
        mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V?) { keys.append(key.description) }
        mutating func field<V: JSONFieldValue>(_ key: StaticString, _ value: inout V, absent: V) {
            keys.append(key.description)
        }
        mutating func field<C: JSONFieldCodec>(_ key: StaticString, _ value: inout C.Value, as codec: C.Type) {
            keys.append(key.description)
        }
        mutating func flag(_ key: StaticString, _ value: inout Bool) { keys.append(key.description) }
        mutating func lines<V: JSONFieldValue>(_ key: StaticString, _ value: inout [V]) { keys.append(key.description) }
    }

    /// A layout decoded is normalised as made, and one naming a word order where none applies is refused, with the
    /// field's path; "not set" patterns must be whole words of hex.
    func testEntryLayoutChecksWhatItDecodes() throws {
        let decoder = APICoding.decoder()
        let u32 = try decoder.decode(EntryLayout.self, from: Data(#"{"byteOrder":"big","type":"u32","unset":[]}"#.utf8))
        XCTAssertEqual(u32, EntryLayout(type: .u32, wordOrder: .big, byteOrder: .big, unset: []))
        XCTAssertEqual(u32.wordOrder, .big)
        let cases: [(String, String)] = [
            (#"{"byteOrder":"big","type":"u16","unset":[],"wordOrder":"little"}"#, "word order does not apply to u16"),
            (#"{"byteOrder":"big","type":"u16","unset":["FFF"]}"#, "\"FFF\" is not whole words of hex"),
            (#"{"byteOrder":"big","type":"u17","unset":[]}"#, "unknown register type \"u17\""),
        ]
        for (json, message) in cases {
            XCTAssertThrowsError(try decoder.decode([EntryLayout].self, from: Data("[\(json)]".utf8)), json) { error in
                guard case DecodingError.dataCorrupted(let c) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(c.debugDescription, message)
                XCTAssertEqual(
                    c.codingPath.last?.stringValue,
                    message.hasPrefix("word") ? "wordOrder" : message.hasPrefix("unknown") ? "type" : "unset")
            }
        }
    }

    /// A mark written before reasons were recorded reads as interrupted.
    func testUnverifiedMarkWithoutReasonWasInterrupted() throws {
        let old = #"{"device":"d","job":"J","message":"m","pageId":"p","since":"2027-01-15T08:00:00.250Z"}"#
        let mark = try APICoding.decoder().decode(UnverifiedMark.self, from: Data(old.utf8))
        XCTAssertEqual(mark.reason, .interrupted)
        XCTAssertEqual(mark.since, t)
    }

    /// The fast writer's bytes of a value (as its store writes it).
    private func fast(_ record: AuditRecord) -> [UInt8] {
        var w = JSONWriter()
        record.write(to: &w)
        return w.bytes
    }

    private func fast(_ state: DevicePageState) -> [UInt8] {
        var w = JSONWriter()
        state.write(to: &w)
        return w.bytes
    }
}
