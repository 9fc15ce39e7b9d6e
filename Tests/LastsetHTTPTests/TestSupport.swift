import Foundation
import Glibc
import LastsetHTTP
import XCTest
import LastsetSystem

/// Sends raw bytes over a Unix socket and returns everything the server sends back until it closes (or 5 s pass).
func rawExchange(socketPath: String, _ request: [UInt8]) throws -> String {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    XCTAssertGreaterThanOrEqual(fd, 0)
    defer { close(fd) }
    let connected = try UnixSocketAddress(socketPath).withSockaddr { connect(fd, $0, $1) }
    guard connected == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    var timeout = timeval(tv_sec: 5, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count <= 0 { break }
        received.append(contentsOf: buffer[0..<count])
    }
    return String(decoding: received, as: UTF8.self)
}

/// A value set once by the test and read by handlers on other threads.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    /// Changes the value atomically (a `value` get followed by a set is not atomic).
    func mutate(_ change: (inout Value) -> Void) {
        lock.withLock { change(&stored) }
    }
}
