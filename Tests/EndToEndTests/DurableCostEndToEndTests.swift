import Foundation
import Glibc
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// What each job costs in fsyncs, counted with strace attached to every thread of the real daemon while the
/// job runs (issue 20): the physical minimum for what it promises — a capture, an import, a promote and a
/// delete are one commit each (the version or its removal and its audit record together); a replay two (its
/// intent before the first frame; its outcome with the device state and the journal's end), its per-frame journal
/// events none of their own; a dry run one (its record).
final class DurableCostEndToEndTests: XCTestCase {

    func testEachJobCostsTheFsyncsItsPromisesNeed() throws {
        let a = try pymodbusPeer(DaemonEndToEndTests.reference)
        let b = try pymodbusPeer(DaemonEndToEndTests.blank)
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  devices: [
                    { id: "press-a", endpoint: "tcp://127.0.0.1:\(a.port!)", unit: 1, pages: ["heating"] },
                    { id: "press-b", endpoint: "tcp://127.0.0.1:\(b.port!)", unit: 1, pages: ["heating"] },
                  ],
                \(DaemonEndToEndTests.pages)
                }
                """)
        let trace = try StraceAttachment(
            pid: daemon.process.processIdentifier, into: daemon.dir.appendingPathComponent("fsyncs.trace"))
        var windows: [(String, Double, Double)] = []
        func measured(_ name: String, _ method: String, _ path: String, _ body: String?, expect: Int) throws
            -> HTTPClientResponse
        {
            let start = Date().timeIntervalSince1970
            let r = try daemon.client.send(method: method, path: path, body: body.map { Array($0.utf8) })
            windows.append((name, start, Date().timeIntervalSince1970))
            XCTAssertEqual(r.status, expect, "\(name): \(String(decoding: r.body, as: UTF8.self))")
            return r
        }
        try measured("capture", "POST", "/v1/pages/heating/capture?wait=true", #"{"device":"press-a"}"#, expect: 200)
        try Mbpoll.writeHolding(port: a.port!, unit: 1, address: 120, values: [20])
        try measured("second capture", "POST", "/v1/pages/heating/capture?wait=true", #"{"device":"press-a"}"#, expect: 200)
        try measured("dry run", "POST", "/v1/pages/heating/apply?wait=true", #"{"device":"press-b","dryRun":true}"#, expect: 200)
        try measured("replay", "POST", "/v1/pages/heating/apply?wait=true", #"{"device":"press-b"}"#, expect: 200)
        XCTAssertEqual(try Mbpoll.readHolding(port: b.port!, unit: 1, address: 120, count: 1), [20], "press-b holds v2")
        let file = try daemon.api("GET", "/v1/pages/heating/templates/1/file")
        XCTAssertEqual(file.status, 200)
        try measured("import", "POST", "/v1/pages/heating/templates", String(decoding: file.body, as: UTF8.self), expect: 201)
        try measured("promote", "POST", "/v1/pages/heating/templates/1/promote", "{}", expect: 201)
        try measured("delete", "DELETE", "/v1/pages/heating/templates/3", nil, expect: 200)
        let calls = try trace.finish()

        var counts: [String: Int] = [:]
        for (name, start, end) in windows {
            let syncs = calls.calls(SyscallTrace.syncCalls, from: start, to: end)
            counts[name] = syncs.count
            print("fsyncs: \(name) \(syncs.count): \(syncs.map(\.text))")
        }
        for job in ["capture", "second capture", "import", "promote", "delete"] {
            XCTAssertEqual(counts[job], 1, "\(job): its version (or removal) and its audit record are one commit")
        }
        XCTAssertEqual(counts["replay"], 2, "a replay: its intent, then its outcome with the device state")
        XCTAssertEqual(counts["dry run"], 1, "a dry run: its record")
    }
}
