import Foundation
import LastsetCore
import LastsetStore
import TestSupport
import XCTest

@testable import LastsetEngine

/// Four-eyes change requests in `lastset.db` (`ChangeRequestStore`): a request and its approvals outlive a restart
/// (they were dropped with the daemon's memory before), an apply's claim is committed before it may start, and a
/// request still claimed at open — its apply was running when the daemon stopped — is closed as stale, never applied
/// a second time.
final class ChangeRequestStoreTests: XCTestCase {
    private var dir: URL!
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    override func setUp() async throws {
        dir = try TestPaths.temporaryDirectory(prefix: "changes")
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(at: dir)
    }

    private func request(_ id: String) -> ChangeRequest {
        ChangeRequest(
            id: id, pageId: "heating", device: "press-b", versionId: "3", hash: "sha256:\(id)",
            requested: Approval(who: "token:ann", time: t0, meaning: .authorship, reason: "grid code 2027"),
            plan: .placeholder)
    }

    private func open() throws -> (Database, ChangeRequestStore) {
        let database = try RecordStore.open(dataDirectory: dir)
        return (database, try ChangeRequestStore(database: database))
    }

    func testRequestsAndApprovalsOutliveARestart() async throws {
        var (database, store) = try open()
        try await store.add(request("a"))
        try await store.add(request("b"))
        let approval = Approval(who: "token:bob", time: t0.addingTimeInterval(60), meaning: .approval, reason: "limits checked")
        let signing = try await store.sign("a", approval)
        let signed = try XCTUnwrap(signing).get()
        XCTAssertEqual(signed.state, .approved)
        database.close()

        (database, store) = try open()
        let listed = await store.list()
        XCTAssertEqual(listed.map(\.id), ["a", "b"])
        XCTAssertEqual(listed.map(\.state), [.approved, .open])
        XCTAssertEqual(listed.first?.approvals, [approval])
        // The approved request may be applied after the restart, once.
        let claiming = try await store.claim("a")
        let claimed = try XCTUnwrap(claiming).get()
        XCTAssertEqual(claimed.id, "a")
        let again1 = try await store.claim("a")
        guard case .failure = try XCTUnwrap(again1) else { return XCTFail("claimed twice") }
        try await store.finish("a", state: .applied, job: "job-1", outcome: "succeeded")
        database.close()

        (database, store) = try open()
        let a = await store.get("a")
        XCTAssertEqual(a?.state, .applied)
        XCTAssertEqual(a?.applyJob, "job-1")
        let again2 = try await store.claim("a")
        guard case .failure = try XCTUnwrap(again2) else { return XCTFail("an applied request was claimed") }
        let closedNone = await store.closedAtOpen
        XCTAssertEqual(closedNone, [])
        database.close()
    }

    /// The newest `keptClosed` (500) closed requests are kept, as docs/CHANGE-CONTROL.md says: filing a request with
    /// exactly 500 closed drops none (it dropped the oldest, keeping 499); with 501, the oldest one goes, for good.
    func testFilingARequestKeepsTheNewest500ClosedRequests() async throws {
        var (database, store) = try open()
        for n in 0..<ChangeRequestStore.keptClosed {
            var closed = request("closed-\(n)")
            closed.state = .applied
            try await store.add(closed, at: t0.addingTimeInterval(Double(n)))
        }
        try await store.add(request("open-1"), at: t0.addingTimeInterval(1000))
        var listed = await store.list()
        XCTAssertEqual(listed.filter(\.state.isClosed).count, 500)
        XCTAssertEqual(listed.first?.id, "closed-0")
        XCTAssertEqual(listed.last?.id, "open-1")

        var oneMore = request("closed-500")
        oneMore.state = .stale
        try await store.add(oneMore, at: t0.addingTimeInterval(1001))
        listed = await store.list()
        XCTAssertEqual(listed.filter(\.state.isClosed).count, 501, "pruned only when a request is filed")
        try await store.add(request("open-2"), at: t0.addingTimeInterval(1002))
        listed = await store.list()
        XCTAssertEqual(listed.filter(\.state.isClosed).count, 500)
        XCTAssertNil(listed.first { $0.id == "closed-0" })
        XCTAssertEqual(listed.first?.id, "closed-1")
        XCTAssertEqual(listed.count, 502)
        database.close()

        // Removed from the database too, not only from the list.
        (database, store) = try open()
        listed = await store.list()
        XCTAssertEqual(listed.count, 502)
        XCTAssertEqual(listed.first?.id, "closed-1")
        database.close()
    }

    func testARequestWhoseApplyWasInterruptedIsClosedAsStaleAtOpen() async throws {
        var (database, store) = try open()
        try await store.add(request("a"))
        let approval = Approval(who: "token:bob", time: t0, meaning: .approval, reason: "ok")
        _ = try await store.sign("a", approval)
        let claiming = try await store.claim("a")
        _ = try XCTUnwrap(claiming).get()
        // The daemon stops here: no finish.
        database.close()

        (database, store) = try open()
        let got = await store.get("a")
        let a = try XCTUnwrap(got)
        XCTAssertEqual(a.state, .stale)
        XCTAssertEqual(a.outcome, ChangeRequestStore.interrupted)
        let closedA = await store.closedAtOpen
        XCTAssertEqual(closedA, ["a"])
        let again3 = try await store.claim("a")
        guard case .failure = try XCTUnwrap(again3) else { return XCTFail("applied a second time") }
        database.close()
        // Closed for good: the next open finds it stale and does not report it again.
        (database, store) = try open()
        let final = await store.get("a")
        XCTAssertEqual(final?.state, .stale)
        let closedNone = await store.closedAtOpen
        XCTAssertEqual(closedNone, [])
        database.close()
    }
}
