import Glibc
import XCTest

@testable import LastsetSystem

/// The one numeric sockaddr_in/sockaddr_in6 builder of the API's listening socket and the CLI's connection: its table
/// of hosts, then a real bind, listen and connect through it.
final class InternetSocketAddressTests: XCTestCase {
    func testHostsAndTheirFamilies() {
        let accepted: [(String, Int32)] = [
            ("127.0.0.1", AF_INET), ("localhost", AF_INET), ("0.0.0.0", AF_INET), ("::1", AF_INET6), ("[::1]", AF_INET6),
            ("fe80::1", AF_INET6),
        ]
        for (host, family) in accepted {
            guard let address = InternetSocketAddress(numericHost: host, port: 8502) else {
                XCTFail("\(host) refused")
                continue
            }
            XCTAssertEqual(address.family, family, host)
            address.withSockaddr { pointer, length in
                XCTAssertEqual(Int32(pointer.pointee.sa_family), family, host)
                if family == AF_INET {
                    XCTAssertEqual(Int(length), MemoryLayout<sockaddr_in>.size, host)
                    pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                        XCTAssertEqual(UInt16(bigEndian: $0.pointee.sin_port), 8502, host)
                    }
                } else {
                    XCTAssertEqual(Int(length), MemoryLayout<sockaddr_in6>.size, host)
                    pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                        XCTAssertEqual(UInt16(bigEndian: $0.pointee.sin6_port), 8502, host)
                    }
                }
            }
        }
        // Names are never resolved.
        for host in ["example.com", "", "127.0.0.256", "[::1", "::1]", "1.2.3"] {
            XCTAssertNil(InternetSocketAddress(numericHost: host, port: 1), host)
        }
    }

    func testABindAndAConnectThroughIt() throws {
        let any = try XCTUnwrap(InternetSocketAddress(numericHost: "127.0.0.1", port: 0))
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(listener, 0)
        defer { close(listener) }
        XCTAssertEqual(any.withSockaddr { bind(listener, $0, $1) }, 0, String(cString: strerror(errno)))
        XCTAssertEqual(listen(listener, 1), 0)
        var bound = sockaddr_in()
        var boundLength = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &bound) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &boundLength) }
        }
        let port = UInt16(bigEndian: bound.sin_port)
        XCTAssertNotEqual(port, 0)

        let target = try XCTUnwrap(InternetSocketAddress(numericHost: "localhost", port: port))
        let client = socket(target.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        XCTAssertGreaterThanOrEqual(client, 0)
        defer { close(client) }
        XCTAssertEqual(target.withSockaddr { connect(client, $0, $1) }, 0, String(cString: strerror(errno)))
    }
}
