import Foundation
import Glibc
import LastsetService
import XCTest

final class SignalEventsTests: XCTestCase {
    func testHangupArrivesOnTheStream() async throws {
        let stream = SignalEvents.stream([.hangup])
        // The source registers asynchronously: keep signalling until the first arrival, bounded by a deadline.
        let sender = Task.detached {
            let deadline = ContinuousClock.now + .seconds(5)
            while !Task.isCancelled && ContinuousClock.now < deadline {
                kill(getpid(), SIGHUP)
                try? await Task.sleep(for: .milliseconds(50))
            }
        }
        defer { sender.cancel() }
        var iterator = stream.makeAsyncIterator()
        let first = await iterator.next()
        XCTAssertEqual(first, .hangup)
        XCTAssertEqual(first?.description, "SIGHUP")
    }

    func testSignalNames() {
        XCTAssertEqual(SignalEvents.Signal.terminate.description, "SIGTERM")
        XCTAssertEqual(SignalEvents.Signal.interrupt.rawValue, SIGINT)
        XCTAssertEqual(SignalEvents.Signal(rawValue: SIGUSR1).description, "signal \(SIGUSR1)")
    }
}
