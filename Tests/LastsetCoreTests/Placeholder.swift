import XCTest

final class LastsetCoreTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
