import XCTest

final class LastsetEngineTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
