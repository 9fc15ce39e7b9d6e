import Foundation
import LastsetCore
import XCTest

@testable import LastsetHTTP
@testable import LastsetService

/// The hub's ids, its bounded memory of recent events and what a stream opened with `Last-Event-ID` receives: the
/// missed events in order, or a `gap` first (the decision itself is `EventReplayTests`'). No server: the streams' bytes
/// are read as the connection's thread would.
final class EventHubTests: XCTestCase {
    /// Everything queued on `stream` so far, as messages, and the last id read.
    private func drain(_ stream: HTTPStream) -> ([ServerEventStream.Message], String?) {
        var reader = ServerEventStream()
        var messages: [ServerEventStream.Message] = []
        while let bytes = stream.read(max: 1 << 20, idle: .milliseconds(1)), bytes != stream.keepAlive {
            messages += reader.feed(bytes)
        }
        return (messages, reader.lastEventId)
    }

    private func publish(_ hub: EventHub, _ pages: ClosedRange<Int>) {
        for n in pages { hub.publish(ServerEvent(event: .drift, device: "press", page: "p\(n)", registers: ["r"])) }
    }

    private func pages(_ messages: [ServerEventStream.Message]) -> [String] {
        messages.compactMap { try? APICoding.decoder().decode(ServerEvent.self, from: Data($0.data.utf8)) }
            .map { $0.event == .gap ? "gap" : $0.page ?? "?" }
    }

    func testAReconnectGetsExactlyWhatItMissedOrAGapFirst() throws {
        let hub = EventHub(run: "r1", capacity: 4)
        let first = try XCTUnwrap(hub.subscribe())
        var (messages, position) = drain(first)
        XCTAssertEqual(messages, [], "no event yet")
        XCTAssertEqual(position, "r1-0", "the position is sent when the stream opens")
        publish(hub, 1...2)
        (messages, position) = drain(first)
        XCTAssertEqual(messages.map(\.id), ["r1-1", "r1-2"])
        XCTAssertEqual(pages(messages), ["p1", "p2"])
        first.finish()

        // Missed 3 and 4 (kept: 1…4): exactly those, in order, then the live ones.
        publish(hub, 3...4)
        let again = try XCTUnwrap(hub.subscribe(lastEventID: position))
        publish(hub, 5...5)
        (messages, position) = drain(again)
        XCTAssertEqual(messages.map(\.id), ["r1-3", "r1-4", "r1-5"])
        XCTAssertEqual(pages(messages), ["p3", "p4", "p5"])
        again.finish()

        // Up to date: nothing replayed.
        let current = try XCTUnwrap(hub.subscribe(lastEventID: "r1-5"))
        XCTAssertEqual(drain(current).0, [])
        current.finish()

        // Missed 6…10 with only 4 kept (7…10): a gap first, carrying the newest id, then the live ones.
        publish(hub, 6...10)
        let late = try XCTUnwrap(hub.subscribe(lastEventID: "r1-5"))
        publish(hub, 11...11)
        (messages, position) = drain(late)
        XCTAssertEqual(pages(messages), ["gap", "p11"])
        XCTAssertEqual(messages.map(\.id), ["r1-10", "r1-11"])
        let gap = try APICoding.decoder().decode(ServerEvent.self, from: Data(messages[0].data.utf8))
        XCTAssertEqual(gap.reason, "events after r1-5 are no longer kept (the oldest kept is number 7): some were missed")
        late.finish()

        // The oldest kept (8) follows 7: a client at 7 missed nothing that is gone.
        let edge = try XCTUnwrap(hub.subscribe(lastEventID: "r1-7"))
        XCTAssertEqual(pages(drain(edge).0), ["p8", "p9", "p10", "p11"])
        edge.finish()

        // Another run's id (the daemon restarted): a gap first.
        let other = try XCTUnwrap(hub.subscribe(lastEventID: "r0-3"))
        (messages, _) = drain(other)
        XCTAssertEqual(pages(messages), ["gap"])
        XCTAssertTrue(messages[0].data.contains("from another run of lastsetd"), messages[0].data)
        other.finish()

        // Stopping: every open stream hears why it ends; no new stream.
        let open = try XCTUnwrap(hub.subscribe(lastEventID: "r1-11"))
        hub.close()
        var reader = ServerEventStream()
        while let bytes = open.read(max: 1 << 20, idle: .milliseconds(1)) { _ = reader.feed(bytes) }
        XCTAssertTrue(reader.stopping)
        XCTAssertNil(hub.subscribe())
    }

    func testRunsDiffer() {
        let runs = Set((0..<50).map { _ in EventHub.newRun() })
        XCTAssertEqual(runs.count, 50)
        XCTAssertTrue(runs.allSatisfy { $0.count == 12 && EventPosition("\($0)-1")?.run == $0 })
    }
}
