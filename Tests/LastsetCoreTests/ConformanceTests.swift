import Foundation
import LastsetCore
import XCTest
import LastsetFormats

/// Conformance: the comparison polling runs, the drift bookkeeping that decides what is logged, and the
/// state reported for a device page — table-driven, no server.
final class ConformanceTests: XCTestCase {
    static let expected = [
        RecordedValue(registerId: "mode", address: 100, valueData: "0002", value: .unsigned(2)),
        RecordedValue(registerId: "setpoint", address: 101, valueData: "ff6a", value: .signed(-150)),
    ]

    static func live(_ pairs: [(String, String?)]) -> [LiveValue] {
        pairs.enumerated().map { i, p in
            LiveValue(
                registerId: p.0, address: 100 + i, valueData: p.1, value: p.1.map { .unsigned(UInt64($0, radix: 16) ?? 0) },
                lastDate: p.1 == nil ? nil : Date(), error: p.1 == nil ? "timeout" : nil)
        }
    }

    func testCompare() {
        let cases: [(String, [LiveValue], String)] = [
            ("same values (hex case ignored)", Self.live([("mode", "0002"), ("setpoint", "FF6A")]), "conforms"),
            ("one register changed", Self.live([("mode", "0001"), ("setpoint", "ff6a")]), "drifted mode"),
            ("changed beats unread", Self.live([("mode", "0001"), ("setpoint", nil)]), "drifted mode"),
            ("unread", Self.live([("mode", "0002"), ("setpoint", nil)]), "unknown not read: setpoint (timeout)"),
            ("register gone from the page", Self.live([("mode", "0002")]), "unknown not read: setpoint (no longer on the page)"),
            ("both changed", Self.live([("mode", "0000"), ("setpoint", "0000")]), "drifted mode,setpoint"),
        ]
        for (name, live, want) in cases {
            let got: String
            switch Conformance.compare(expected: Self.expected, live: live) {
            case .conforms: got = "conforms"
            case .drifted(let r): got = "drifted " + r.map(\.registerId).joined(separator: ",")
            case .unknown(let why): got = "unknown " + why
            }
            XCTAssertEqual(got, want, name)
        }
        guard
            case .drifted(let r) = Conformance.compare(
                expected: Self.expected, live: Self.live([("mode", "0001"), ("setpoint", "ff6a")]))
        else { return XCTFail("no drift") }
        XCTAssertEqual(
            r,
            [
                DriftedRegister(
                    registerId: "mode", address: 100, expectedData: "0002", expected: .unsigned(2), liveData: "0001",
                    live: .unsigned(1))
            ])
        XCTAssertEqual(Conformance.compare(expected: [], live: []), .unknown("the applied template wrote no register"))
    }

    /// A drifted register's expected value is its words decoded with the page as it is now (a layout changed since
    /// the apply, as a config reload does it), like its live value; without the page, the recorded decoding.
    func testDriftShowsTheExpectedWordsDecodedWithTheCurrentPage() {
        let applied = [RecordedValue(registerId: "energy", address: 102, valueData: "E2400001", value: .unsigned(123456))]
        let live = [
            LiveValue(
                registerId: "energy", address: 102, valueData: "00000001", value: .unsigned(1), lastDate: Date(), error: nil)
        ]
        let cases: [(PageDefinition?, RegisterValue, UInt)] = [
            (nil, .unsigned(123456), #line),
            (
                PageDefinition(
                    id: "p", registers: [RegisterDefinition(registerId: "energy", address: 102, type: .u32, wordOrder: .little)]),
                .unsigned(123456), #line
            ),
            (
                PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "energy", address: 102, type: .u32)]),
                .unsigned(3_795_845_121), #line
            ),
            (
                PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "energy", address: 104, type: .u32)]),
                .unsigned(123456), #line
            ),
        ]
        for (page, expected, line) in cases {
            guard case .drifted(let r) = Conformance.compare(expected: applied, live: live, page: page.map { CompiledPage($0) })
            else { return XCTFail("no drift", line: line) }
            XCTAssertEqual(r.map(\.expected), [expected], line: line)
        }
    }

    /// Each step: verdict in, state and change out. Drift is logged when it appears or changes, once; unknown
    /// polls in between neither clear nor repeat it; only conforms clears it, once.
    func testDriftIsReportedOnceWhenItAppearsAndOnceWhenItClears() {
        let t = (0..<8).map { Date(timeIntervalSince1970: 1_000 + Double($0)) }
        let mode = DriftedRegister(
            registerId: "mode", address: 100, expectedData: "0002", expected: .unsigned(2), liveData: "0001", live: .unsigned(1))
        let mode3 = DriftedRegister(
            registerId: "mode", address: 100, expectedData: "0002", expected: .unsigned(2), liveData: "0003", live: .unsigned(3))
        let steps: [(ConformanceVerdict, ConformanceState, DriftChange, Date?)] = [
            (.conforms, .conforms, .none, nil),
            (.drifted([mode]), .drifted, .appeared([mode]), t[1]),
            (.drifted([mode]), .drifted, .none, t[1]),
            (.unknown("timeout"), .unknown, .none, t[1]),
            (.drifted([mode]), .drifted, .none, t[1]),
            (.drifted([mode3]), .drifted, .appeared([mode3]), t[1]),
            (.conforms, .conforms, .cleared(since: t[1]), nil),
            (.conforms, .conforms, .none, nil),
        ]
        var previous: PageConformance?
        for (i, (verdict, state, change, since)) in steps.enumerated() {
            let (next, got) = PageConformance.next(
                after: previous, verdict: verdict, device: "d", pageId: "p", applied: nil, at: t[i])
            XCTAssertEqual(next.state, state, "step \(i)")
            XCTAssertEqual(got, change, "step \(i)")
            XCTAssertEqual(next.since, since, "step \(i)")
            previous = next
        }
    }

    func testReportSaysWhyItCannotTell() {
        let at = Date(timeIntervalSince1970: 5_000)
        let applied = AppliedTemplate(
            version: 2, pageHash: "h", appliedAt: at, appliedBy: "uid:1", job: "j", entries: Self.expected)
        let held = DevicePageState(device: "d", pageId: "p", applied: applied)
        let polled = PageConformance(device: "d", pageId: "p", state: .conforms, applied: applied.summary, checkedAt: at)
        let stale = PageConformance(
            device: "d", pageId: "p", state: .drifted,
            applied: AppliedSummary(version: 1, appliedAt: .distantPast, appliedBy: "x", job: nil), checkedAt: at)
        var unverified = held
        unverified.unverified = UnverifiedMark(device: "d", pageId: "p", since: at, job: "k", message: "interrupted")
        var partial = held
        partial.setMark(UnverifiedMark(device: "d", pageId: "p", since: at, job: "k", reason: .failed, message: "failed"))
        let cases: [(String, DevicePageState?, Bool, PageConformance?, ConformanceState, String?)] = [
            ("never applied", nil, true, nil, .unknown, "never applied (as far as this daemon knows)"),
            ("not polled", held, false, nil, .unknown, "not polled: `lastset diff p --device d` compares on request"),
            ("not polled yet", held, true, nil, .unknown, "not polled yet"),
            ("verdict older than the apply", held, true, stale, .unknown, "applied since the last poll; the next poll compares"),
            ("polled", held, true, polled, .conforms, nil),
            ("unverified", unverified, true, polled, .unknown, "unverified since \(TimeText.iso8601(at)): interrupted"),
            ("partially written", partial, true, polled, .unknown, "partially written since \(TimeText.iso8601(at)): failed"),
        ]
        for (name, state, isPolled, last, want, reason) in cases {
            let r = PageConformance.report(device: "d", pageId: "p", polled: isPolled, state: state, last: last)
            XCTAssertEqual(r.state, want, name)
            XCTAssertEqual(r.reason, reason, name)
            XCTAssertEqual(r.applied, state?.applied?.summary, name)
        }
    }

    func testRolloutStanding() {
        let a2 = AppliedSummary(version: 2, appliedAt: .distantPast, appliedBy: "x", job: nil)
        func c(_ state: ConformanceState, _ applied: AppliedSummary?) -> PageConformance {
            PageConformance(device: "d", pageId: "p", state: state, applied: applied)
        }
        let cases: [(PageConformance, String?, UnverifiedMark.Reason?, RolloutStanding)] = [
            (c(.unknown, nil), "2", nil, .neverApplied),
            (c(.unknown, nil), "2", .interrupted, .unverified),
            (c(.conforms, a2), "2", nil, .latest),
            (c(.unknown, a2), "2", nil, .latest),
            (c(.conforms, a2), "3", nil, .older),
            (c(.drifted, a2), "2", nil, .drifted),
            (c(.conforms, a2), "2", .interrupted, .unverified),
            // A failed replay partially wrote the page: no version, whatever conformance says.
            (c(.unknown, nil), "2", .failed, .partiallyWritten),
            (c(.conforms, a2), "2", .failed, .partiallyWritten),
            (c(.drifted, a2), "2", .failed, .partiallyWritten),
        ]
        for (i, (conf, latest, mark, want)) in cases.enumerated() {
            XCTAssertEqual(Rollout.standing(conf, latestVersion: latest, mark: mark), want, "case \(i)")
        }
        let view = Rollout(
            pageId: "p", latestVersion: "2",
            devices: [
                RolloutDevice(device: "d", standing: .latest, appliedVersion: "2", conformance: c(.conforms, a2)),
                RolloutDevice(device: "e", standing: .partiallyWritten, appliedVersion: nil, conformance: c(.unknown, nil)),
            ])
        XCTAssertEqual(
            view.counts,
            ["latest": 1, "older": 0, "equivalent": 0, "drifted": 0, "unverified": 0, "partiallyWritten": 1, "neverApplied": 0])
    }
}
