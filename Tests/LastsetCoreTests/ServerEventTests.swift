import Foundation
import LastsetCore
import XCTest

/// The events stream's wire form (`ServerEvent.sse`) and its reader (`ServerEventStream`), and the event of each
/// machine-recognition action. Table-driven, no server.
final class ServerEventTests: XCTestCase {
    static let t = Date(timeIntervalSince1970: 1_800_000_000)

    func testAnEventIsOneBlockAndReadsBackWhateverThePieces() throws {
        let event = ServerEvent(event: .drift, time: Self.t, device: "press-1", page: "heating", registers: ["a", "b"])
        let bytes = event.sse(id: "9c1e2f3a4b5d-7")
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("id: 9c1e2f3a4b5d-7\nevent: drift\ndata: {"), text)
        XCTAssertTrue(text.hasSuffix("}\n\n"), text)
        XCTAssertEqual(text.filter { $0 == "\n" }.count, 4, "the JSON is one line")
        let stream = Array(": lastsetd events\n\n".utf8) + bytes + Array(": keep-alive\n\n".utf8) + bytes
        for size in [1, 2, 5, 64, stream.count] {
            var reader = ServerEventStream()
            var messages: [ServerEventStream.Message] = []
            var offset = 0
            while offset < stream.count {
                messages += reader.feed(stream[offset..<min(stream.count, offset + size)])
                offset += size
            }
            XCTAssertEqual(messages.map(\.event), ["drift", "drift"], "pieces of \(size)")
            XCTAssertEqual(messages.first?.id, "9c1e2f3a4b5d-7")
            XCTAssertEqual(reader.lastEventId, "9c1e2f3a4b5d-7")
            let decoded = try APICoding.decoder().decode(ServerEvent.self, from: Data(messages[0].data.utf8))
            XCTAssertEqual(decoded, event)
        }
    }

    func testTheReaderFollowsTheSpecification() {
        let cases: [(String, String, [ServerEventStream.Message])] = [
            ("no event field: message", "data: x\n\n", [.init(id: nil, event: "message", data: "x")]),
            ("two data lines joined", "event: e\ndata: a\ndata: b\n\n", [.init(id: nil, event: "e", data: "a\nb")]),
            ("CRLF lines", "event: e\r\ndata: a\r\n\r\n", [.init(id: nil, event: "e", data: "a")]),
            ("no space after the colon", "event:e\ndata:a\n\n", [.init(id: nil, event: "e", data: "a")]),
            (
                "comments and unknown fields skipped", ": hi\nretry: 5\nevent: e\ndata: a\n\n",
                [.init(id: nil, event: "e", data: "a")]
            ),
            (
                "the id stays for the next", "id: 3\nevent: a\ndata: 1\n\nevent: b\ndata: 2\n\n",
                [.init(id: "3", event: "a", data: "1"), .init(id: "3", event: "b", data: "2")]
            ),
            ("an unfinished block waits", "event: e\ndata: a\n", []),
            ("a blank line alone is nothing", "\n\n", []),
        ]
        for (name, text, expected) in cases {
            var reader = ServerEventStream()
            XCTAssertEqual(reader.feed(Array(text.utf8)), expected, name)
        }
    }

    func testTheLastEventIdAndTheDaemonsStop() {
        // The position a stream opens with is an id-only block: no event, but the last event id.
        var reader = ServerEventStream()
        XCTAssertEqual(reader.feed(Array(": lastsetd events\n\nid: r1-4\n\n".utf8)), [])
        XCTAssertEqual(reader.lastEventId, "r1-4")
        XCTAssertFalse(reader.stopping)
        _ = reader.feed(Array("id: r1-5\nevent: drift\ndata: {}\n\n: keep-alive\n\n".utf8))
        XCTAssertEqual(reader.lastEventId, "r1-5")
        XCTAssertFalse(reader.stopping, "a keep-alive is not a stop")
        // An id whose block was cut before its blank line is not the last event id (that event is sent again).
        _ = reader.feed(Array("id: r1-6\nevent: drift\n".utf8))
        XCTAssertEqual(reader.lastEventId, "r1-5")
        _ = reader.feed(Array("data: {}\n\n".utf8))
        XCTAssertEqual(reader.lastEventId, "r1-6")
        _ = reader.feed(Array(": lastsetd stopping\n\n".utf8))
        XCTAssertTrue(reader.stopping)
        let gap = ServerEvent(event: .gap, time: Self.t, reason: "events after r1-1 are no longer kept")
        let text = String(decoding: gap.sse(id: "r1-9"), as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("id: r1-9\nevent: gap\ndata: {"), text)
        XCTAssertTrue(text.contains(#""reason":"events after r1-1 are no longer kept""#), text)
    }

    func testEachActionsEvent() {
        let fingerprint = MachineFingerprint(model: ["model": "00C8"], instance: ["serial": "00000007"])
        func finding(_ kind: MachineEvent.Kind) -> MachineEvent {
            MachineEvent(kind: kind, detail: ["serial"], fingerprint: fingerprint, noticedAt: Self.t)
        }
        let cases: [(MachineRecognition.Action, ServerEventName?)] = [
            (.none, nil), (.recorded, nil), (.noticed(finding(.replaced)), .replaced),
            (.restore(finding(.factoryReset)), .factoryReset),
            (.noticed(finding(.anotherModel)), .anotherModel), (.updated(finding(.changedElsewhere)), .changedElsewhere),
            (.resolved(finding(.replaced), adopted: true), .resolved),
        ]
        for (action, name) in cases {
            let event = ServerEvent.of(action, device: "d", at: Self.t)
            XCTAssertEqual(event?.event, name, "\(action)")
            if name != nil { XCTAssertEqual(event?.device, "d") }
        }
        XCTAssertEqual(ServerEvent.of(.resolved(finding(.replaced), adopted: true), device: "d")?.adopted, true)
    }
}
