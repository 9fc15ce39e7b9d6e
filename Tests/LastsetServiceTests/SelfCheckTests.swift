import XCTest

@testable import LastsetService

/// The watchdog's self-check is decided in the process (issue 19, defect 15): a busy API cannot fail it, a daemon
/// whose health is not computed in time or whose listener is down does.
final class SelfCheckTests: XCTestCase {
    func testTheVerdictFollowsTheDaemonsHealthWithinTheBound() async {
        let healthy = SelfCheck(timeout: .milliseconds(500), serving: { true }, health: {})
        let ok = await healthy.run()
        XCTAssertTrue(ok)
        let down = SelfCheck(timeout: .milliseconds(500), serving: { false }, health: {})
        let listenerDown = await down.run()
        XCTAssertFalse(listenerDown, "a stopped listener passed")
        let stuck = SelfCheck(timeout: .milliseconds(200), serving: { true }, health: { try? await Task.sleep(for: .seconds(3)) })
        let start = ContinuousClock.now
        let late = await stuck.run()
        XCTAssertFalse(late, "a health that is not computed within the bound passed")
        XCTAssertLessThan(ContinuousClock.now - start, .seconds(2), "the check waited for the stuck health")
    }
}
