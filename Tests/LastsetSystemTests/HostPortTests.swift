import XCTest

@testable import LastsetSystem

/// The one host:port split, table-tested: each row a text and the host and port it gives, or why it is refused.
final class HostPortTests: XCTestCase {
    func testSplitsAtTheLastColonOrAfterTheBrackets() {
        let accepted: [(String, host: String, port: String)] = [
            ("127.0.0.1:502", "127.0.0.1", "502"),
            ("localhost:8502", "localhost", "8502"),
            ("[::1]:8502", "::1", "8502"),
            ("[fe80::1%eth0]:502", "fe80::1%eth0", "502"),
            ("::1:502", "::1", "502"),
            (":502", "", "502"),
            ("host:", "host", ""),
            ("host:port:1", "host:port", "1"),
            ("[]:1", "", "1"),
        ]
        for (text, host, port) in accepted {
            XCTAssertEqual(try HostPort(parsing: text), HostPort(host: host, port: port), text)
        }
        let refused: [(String, HostPortError.Reason)] = [
            ("127.0.0.1", .missingPort),
            ("", .missingPort),
            ("[::1]", .missingPort),
            ("[::1]x:80", .missingPort),
            ("[::1:80", .unclosedBracket),
        ]
        for (text, reason) in refused {
            XCTAssertThrowsError(try HostPort(parsing: text), text) { error in
                XCTAssertEqual(error as? HostPortError, HostPortError(text: text, reason: reason), text)
            }
        }
    }

    func testWritesIPv6HostsInBrackets() {
        XCTAssertEqual(HostPort(host: "127.0.0.1", port: "502").description, "127.0.0.1:502")
        XCTAssertEqual(HostPort(host: "::1", port: "8502").description, "[::1]:8502")
        for text in ["127.0.0.1:502", "[::1]:8502", "example.com:80"] {
            XCTAssertEqual(try HostPort(parsing: text).description, text)
        }
    }

    func testUnbracketedTakesOnlyAPairOfBrackets() {
        let rows = [("[::1]", "::1"), ("::1", "::1"), ("127.0.0.1", "127.0.0.1"), ("[x", "[x"), ("x]", "x]"), ("[]", "")]
        for (host, expected) in rows { XCTAssertEqual(HostPort.unbracketed(host), expected, host) }
    }

    func testReasonsRead() {
        XCTAssertEqual(HostPortError(text: "a", reason: .missingPort).description, "missing ':port'")
        XCTAssertEqual(HostPortError(text: "[a", reason: .unclosedBracket).description, "unclosed '[' in IPv6 host")
    }
}
