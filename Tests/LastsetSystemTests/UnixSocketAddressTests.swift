import Foundation
import Glibc
import TestSupport
import XCTest

@testable import LastsetSystem

/// The one sockaddr_un builder: its table of names, then a real bind and connect through it.
final class UnixSocketAddressTests: XCTestCase {
    private static let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!

    func testNamesAndTheirLengths() {
        let longest = "/" + String(repeating: "a", count: UnixSocketAddress.capacity - 2)
        // name, abstract allowed → whether abstract, bytes of sun_path counted in the length
        let accepted: [(String, Bool, abstract: Bool, bytes: Int)] = [
            ("/run/lastset/api.sock", false, false, 21 + 1),
            ("api.sock", false, false, 8 + 1),
            ("@notify", false, false, 7 + 1),  // a relative path that starts with @
            ("@notify", true, true, 7),  // abstract: the @ becomes the leading NUL, no terminator
            ("/run/systemd/notify", true, false, 19 + 1),
            ("@", true, true, 1),
            (longest, false, false, UnixSocketAddress.capacity),
        ]
        for (name, allowing, abstract, bytes) in accepted {
            do {
                let address = try UnixSocketAddress(name, allowingAbstract: allowing)
                XCTAssertEqual(address.isAbstract, abstract, name)
                XCTAssertEqual(Int(address.length), Self.pathOffset + bytes, name)
                address.withSockaddr { pointer, length in
                    XCTAssertEqual(Int32(pointer.pointee.sa_family), AF_UNIX)
                    XCTAssertEqual(length, address.length)
                }
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        let refused: [(String, Bool, UnixSocketAddressError.Reason)] = [
            (longest + "a", false, .tooLong),
            ("@" + String(repeating: "n", count: UnixSocketAddress.capacity - 1), true, .tooLong),
            ("", false, .empty),
            ("", true, .empty),
        ]
        for (name, allowing, reason) in refused {
            XCTAssertThrowsError(try UnixSocketAddress(name, allowingAbstract: allowing), name) { error in
                XCTAssertEqual((error as? UnixSocketAddressError)?.reason, reason, name)
            }
        }
        XCTAssertEqual(UnixSocketAddress.capacity, 108)
    }

    func testErrorsSayWhatIsWrong() {
        XCTAssertEqual(UnixSocketAddressError(name: "", reason: .empty).description, "Unix socket name \"\" is empty")
        let long = String(repeating: "x", count: 200)
        XCTAssertEqual(
            UnixSocketAddressError(name: long, reason: .tooLong).description,
            "Unix socket name \"\(long)\" is 200 bytes; at most 107 fit")
    }

    func testAPathAndAnAbstractNameBindAndConnect() throws {
        let directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-sun")
        defer { TestPaths.remove(directory) }
        for (name, abstract) in [(directory + "/s.sock", false), ("@lastset-test-\(getpid())", true)] {
            let address = try UnixSocketAddress(name, allowingAbstract: abstract)
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(server) }
            XCTAssertEqual(address.withSockaddr { bind(server, $0, $1) }, 0, "bind \(name): errno \(errno)")
            XCTAssertEqual(listen(server, 1), 0)
            XCTAssertEqual(FileManager.default.fileExists(atPath: name), !abstract, name)
            let client = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(client) }
            XCTAssertEqual(address.withSockaddr { connect(client, $0, $1) }, 0, "connect \(name): errno \(errno)")
        }
    }
}
