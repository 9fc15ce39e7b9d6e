import XCTest

@testable import LastsetCore

/// Journal lines written with `JSONWriter` decode into what `JSONEncoder`'s lines decode into.
final class ReplayEventJSONTests: XCTestCase {
    func testJournalLinesDecodeAsTheEncodersDo() throws {
        let registers = [
            IntentRegister(
                registerId: "p.a", address: 10, length: 2, expected: .unsigned(70000), expectedData: "00011170",
                before: .unsigned(1), beforeData: "00000001"),
            IntentRegister(registerId: "p.b\"q\\", address: 12, length: 1, expected: .signed(-3), expectedData: "FFFD"),
            IntentRegister(
                registerId: "p.f", address: 13, length: 2, expected: .float(1.5), expectedData: "3FC00000",
                before: .float(-.infinity),
                beforeData: "FF800000"),
            IntentRegister(
                registerId: "p.t", address: 15, length: 2, expected: .text("Aé\n"), expectedData: "41C3",
                before: .bytes([0xFF, 0x00]), beforeData: "FF00"),
        ]
        let intent = ReplayIntent(
            job: "0F3A", time: Date(timeIntervalSince1970: 1_700_000_000.123), who: "token:ops", pageId: "p", deviceId: nil,
            device: "line/1", endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 7, templateVersion: 3, pageHash: "abc",
            identity: [RecordedValue(registerId: "model", address: 0, valueData: "5052", value: .text("PR"))],
            onError: .rollback, registers: registers)
        var stepped = intent
        stepped.beforeWrite = [WriteStep(address: 1536, value: 6868), WriteStep(address: 1537, value: 1)]
        stepped.afterWrite = [WriteStep(address: 2304, value: 0)]
        let request = PlannedRequest(function: .fc16, address: 10, count: 3, registerIds: ["p.a", "p.b\"q\\"])
        let table: [(ReplayEvent, UInt)] = [
            (ReplayEvent(.intent, intent: intent), #line),
            (ReplayEvent(.intent, intent: stepped), #line),
            (
                ReplayEvent(
                    .step, request: PlannedRequest(function: .fc06, address: 2304, count: 1, registerIds: []),
                    answer: .acknowledged, frames: 1, phase: .afterWrite), #line
            ),
            (ReplayEvent(.write, request: request), #line),
            (
                ReplayEvent(
                    .write, request: PlannedRequest(function: .fc06, address: 1, count: 1, registerIds: []), phase: .beforeWrite),
                #line
            ),
            (
                ReplayEvent(
                    .answer, request: request, answer: .rejected, frames: 1, exceptionCode: 3, message: "illegal data value"),
                #line
            ),
            (ReplayEvent(.replan, requests: [request, request], message: "FC06 fallback"), #line),
            (
                ReplayEvent(
                    .check,
                    checks: [
                        JournalCheck(registerId: "p.a", data: "00011170"),
                        JournalCheck(registerId: "p.f", data: nil, message: "timed out"),
                    ]), #line
            ),
            (ReplayEvent(.finalCheck, checks: []), #line),
            (ReplayEvent(.restore, request: request, answer: .noAnswer, frames: 2), #line),
            (ReplayEvent(.end, message: "1 of 4 registers not verified", status: .failed), #line),
            (ReplayEvent(.end), #line),
        ]
        let decoder = APICoding.decoder()
        for (event, line) in table {
            let fast = try decoder.decode(ReplayEvent.self, from: Data(event.journalLine))
            let slow = try decoder.decode(ReplayEvent.self, from: APICoding.encoder().encode(event))
            XCTAssertEqual(fast, slow, line: line)
            XCTAssertFalse(event.journalLine.contains(0x0A), "one line", line: line)
        }
    }
}
