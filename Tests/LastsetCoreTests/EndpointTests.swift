import XCTest

@testable import LastsetCore

/// `tcp://host:port` endpoints: split by the one host:port rule (LastsetSystem.HostPort), then the config's own
/// rules for the host and the port, each refusal with its reason.
final class EndpointTests: XCTestCase {
    func testTCPEndpoints() {
        let accepted: [(String, host: String, port: Int, description: String)] = [
            ("tcp://127.0.0.1:502", "127.0.0.1", 502, "tcp://127.0.0.1:502"),
            ("tcp://press-a.local:1502", "press-a.local", 1502, "tcp://press-a.local:1502"),
            ("tcp://[::1]:502", "::1", 502, "tcp://[::1]:502"),
            ("tcp://::1:502", "::1", 502, "tcp://[::1]:502"),
            ("tcp://h:65535", "h", 65535, "tcp://h:65535"),
        ]
        for (text, host, port, description) in accepted {
            XCTAssertEqual(try Endpoint.parse(text), .tcp(host: host, port: port), text)
            XCTAssertEqual(try Endpoint.parse(text).description, description, text)
        }
        let refused: [(String, String)] = [
            ("tcp://127.0.0.1", "missing ':port'"),
            ("tcp://[::1]502", "missing ':port'"),
            ("tcp://[::1:502", "unclosed '[' in IPv6 host"),
            ("tcp://:502", "empty host"),
            ("tcp://[]:502", "empty host"),
            ("tcp://a b:502", "invalid host \"a b\""),
            ("tcp://h:0", "port \"0\" is not in 1...65535"),
            ("tcp://h:0502", "port \"0502\" is not in 1...65535"),
            ("tcp://h:+502", "port \"+502\" is not in 1...65535"),
            ("tcp://h:", "port \"\" is not in 1...65535"),
        ]
        for (text, reason) in refused {
            XCTAssertThrowsError(try Endpoint.parse(text), text) { error in
                XCTAssertEqual(error as? EndpointError, EndpointError(text: text, reason: reason), text)
            }
        }
    }
}
