import LastsetCore
import XCTest

final class MetricsTextTests: XCTestCase {
    func testEveryFamilyHasHelpTypeAndOneSamplePerDeviceWithEscapedLabels() {
        var a = DeviceStatus(id: "press-a", endpoint: "tcp://127.0.0.1:1", unit: 1, pages: [], poll: "0s", reachable: true)
        a.counters = LinkCounters(requests: 12, retries: 2, crcErrors: 1, badReplies: 3, timeouts: 4, exceptions: 5)
        let odd = DeviceStatus(id: "odd\"id\\x\ny", endpoint: "rtu:///dev/ttyUSB0", unit: 2, pages: [], poll: "0s")
        let text = MetricsText.render([a, odd])
        let expected: [(String, String, String?)] = [
            ("lastset_device_reachable", "gauge", "1"), ("lastset_modbus_requests_total", "counter", "12"),
            ("lastset_modbus_retries_total", "counter", "2"), ("lastset_modbus_crc_errors_total", "counter", "1"),
            ("lastset_modbus_bad_replies_total", "counter", "3"), ("lastset_modbus_timeouts_total", "counter", "4"),
            ("lastset_modbus_exceptions_total", "counter", "5"),
        ]
        for (name, type, value) in expected {
            XCTAssertTrue(text.contains("# HELP \(name) "), name)
            XCTAssertTrue(text.contains("# TYPE \(name) \(type)\n"), name)
            if let value { XCTAssertTrue(text.contains("\(name){device=\"press-a\"} \(value)\n"), "\(name):\n\(text)") }
        }
        // A device never asked has zero counters and no reachability sample yet.
        XCTAssertTrue(text.contains("lastset_modbus_requests_total{device=\"odd\\\"id\\\\x\\ny\"} 0\n"), text)
        XCTAssertFalse(text.contains("lastset_device_reachable{device=\"odd"), text)
        XCTAssertTrue(text.hasSuffix("\n"))
        XCTAssertEqual(MetricsText.contentType, "text/plain; version=0.0.4")
    }
}
