import XCTest

final class ModbusLinkTestsPlaceholder: XCTestCase {
    func testBuilds() {}
}
