import Foundation
import LastsetCore
import XCTest

/// What a client reconnecting to `GET /v1/events` with `Last-Event-ID` gets first (`EventReplay.decide`), and the ids
/// (`EventPosition`). Table-driven, no server.
final class EventReplayTests: XCTestCase {
    func testTheDecision() {
        // The run "r1" has sent events 1…20 and keeps 11…20.
        let cases: [(String, String?, Int, Int?, EventReplay.Decision)] = [
            ("no header: from now on", nil, 20, 11, .live),
            ("an empty header: from now on", "", 20, 11, .live),
            ("up to date", "r1-20", 20, 11, .replay(after: 20)),
            ("missed some, all kept", "r1-15", 20, 11, .replay(after: 15)),
            ("missed from the oldest kept on", "r1-10", 20, 11, .replay(after: 10)),
            ("one missed is gone", "r1-9", 20, 11, .gap(.tooOld("r1-9", oldestKept: 11))),
            ("long gone", "r1-1", 20, 11, .gap(.tooOld("r1-1", oldestKept: 11))),
            ("the position before any event", "r1-0", 20, 1, .replay(after: 0)),
            ("nothing sent yet, at the start", "r1-0", 0, nil, .replay(after: 0)),
            ("another run", "r0-15", 20, 11, .gap(.otherRun("r0-15"))),
            ("another run, same number", "zz-20", 20, 11, .gap(.otherRun("zz-20"))),
            ("ahead of this run", "r1-21", 20, 11, .gap(.ahead("r1-21"))),
            ("not an id", "15", 20, 11, .gap(.unreadable("15"))),
            ("a negative number", "r1--3", 20, 11, .gap(.otherRun("r1--3"))),
            ("no number", "r1-", 20, 11, .gap(.unreadable("r1-"))),
            ("spaces around are the header's", " r1-18 ", 20, 11, .replay(after: 18)),
        ]
        for (name, header, newest, oldest, expected) in cases {
            XCTAssertEqual(
                EventReplay.decide(lastEventID: header, run: "r1", newest: newest, oldestKept: oldest), expected, name)
        }
    }

    func testGapsSayWhy() {
        XCTAssertEqual(
            EventReplay.Gap.tooOld("r1-9", oldestKept: 11).reason,
            "events after r1-9 are no longer kept (the oldest kept is number 11): some were missed")
        XCTAssertTrue(EventReplay.Gap.otherRun("r0-1").reason.contains("another run of lastsetd (it restarted)"))
        XCTAssertTrue(EventReplay.Gap.unreadable("x").reason.contains("is not an event id of lastsetd"))
        XCTAssertTrue(EventReplay.Gap.ahead("r1-99").reason.contains("never sent by this run"))
    }

    func testPositions() {
        XCTAssertEqual(EventPosition(run: "a3f0", sequence: 12).description, "a3f0-12")
        XCTAssertEqual(EventPosition("a3f0-12"), EventPosition(run: "a3f0", sequence: 12))
        XCTAssertEqual(EventPosition("a-b-7"), EventPosition(run: "a-b", sequence: 7))
        for bad in ["", "12", "-12", "a3f0-", "a3f0-1x", "a3f0-+1", "a3f0-1234567890123456789"] {
            XCTAssertNil(EventPosition(bad), bad)
        }
    }
}
