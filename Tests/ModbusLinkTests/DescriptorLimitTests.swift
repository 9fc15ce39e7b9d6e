import Foundation
import LastsetCore
import ModbusLink
import TestSupport
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// libmodbus waits with select(): a socket numbered at or above FD_SETSIZE (1024) made glibc's fd_set check
/// abort the whole process inside modbus_connect — a daemon with many devices and API clients would die
/// with every job it runs. The connection refuses instead, with a message that says why.
final class DescriptorLimitTests: XCTestCase {
    func testAConnectionPastFDSetSizeIsRefusedAndTheProcessLives() async throws {
        let peer = try PymodbusPeer.startTCP(options: [], values: [100: [11, 22, 33]])
        addTeardownBlock { peer.stop() }
        let endpoint = Endpoint.tcp(host: "127.0.0.1", port: peer.port!)

        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        if limit.rlim_cur < 2048 {
            limit.rlim_cur = min(2048, limit.rlim_max)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        var filler: [Int32] = []
        defer {
            for fd in filler { close(fd) }
            var restore = saved
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &restore)
        }
        while true {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { break }
            filler.append(fd)
            if fd >= Int32(FD_SETSIZE) + 4 { break }
        }
        XCTAssertGreaterThanOrEqual(filler.last ?? 0, Int32(FD_SETSIZE), "the soft limit \(limit.rlim_cur) leaves no descriptor past FD_SETSIZE")

        let link = ModbusConnection(endpoint: endpoint, options: fastOptions(timeout: .seconds(2)))
        let refused = await modbusError { () async throws(ModbusError) in
            try await link.readHoldingRegisters(unit: 1, address: 100, count: 1)
        }
        XCTAssertEqual(refused?.kind, .connect, String(describing: refused))
        XCTAssertTrue(refused?.message.contains("select(), which takes none at or above 1024") ?? false, String(describing: refused))
        XCTAssertEqual(try peer.arrivals().count, 0, "nothing reached the device")

        for fd in filler { close(fd) }
        filler.removeAll()
        let value = try await link.readHoldingRegisters(unit: 1, address: 100, count: 3)
        XCTAssertEqual(value, [11, 22, 33], "with descriptors free again the same connection opens")
        XCTAssertEqual(try peer.arrivals().map { [$0.function, $0.address, $0.count] }, [[3, 100, 3]])
    }
}

/// The same limit on the serving side: ModbusSlave (lastset-sim) accepting a client numbered past
/// FD_SETSIZE aborted inside modbus_receive; it hangs up on that client and serves the next.
final class SlaveDescriptorLimitTests: XCTestCase {
    func testASlaveHangsUpOnAClientPastFDSetSizeAndServesTheNext() async throws {
        let slave = try ModbusSlave(listen: .tcp(host: "127.0.0.1", port: 0))
        slave.setHoldingRegisters(address: 100, values: [7, 8])
        try slave.start()
        defer { slave.stop() }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        let saved = limit
        if limit.rlim_cur < 2048 {
            limit.rlim_cur = min(2048, limit.rlim_max)
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        var filler: [Int32] = []
        defer {
            for fd in filler { close(fd) }
            var restore = saved
            setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &restore)
        }
        // Leave exactly one free number below FD_SETSIZE: the client's socket takes it, the slave's
        // accepted end gets one above.
        while true {
            let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { break }
            filler.append(fd)
            if fd >= Int32(FD_SETSIZE) + 4 { break }
        }
        let spare = filler.first { $0 == Int32(FD_SETSIZE) - 1 }
        XCTAssertNotNil(spare, "descriptors up to FD_SETSIZE were taken")
        if let spare {
            close(spare)
            filler.removeAll { $0 == spare }
        }
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        XCTAssertEqual(client, Int32(FD_SETSIZE) - 1)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(slave.port).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        // A read request (FC03, 100+2): the slave hangs up instead of answering.
        let request: [UInt8] = [0, 1, 0, 0, 0, 6, 1, 3, 0, 100, 0, 2]
        _ = request.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        var reply = [UInt8](repeating: 0, count: 64)
        var timeout = timeval(tv_sec: 3, tv_usec: 0)
        setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let n = reply.withUnsafeMutableBytes { read(client, $0.baseAddress, $0.count) }
        let err = errno
        // Closed with the request unread: an end of file or a reset, never an answer or a timeout.
        XCTAssertTrue(n == 0 || (n == -1 && err == ECONNRESET), "the slave answered or kept the connection: read gave \(n), errno \(err)")
        close(client)

        for fd in filler { close(fd) }
        filler.removeAll()
        let link = ModbusConnection(endpoint: slave.endpoint, options: fastOptions())
        let value = try await link.readHoldingRegisters(unit: 1, address: 100, count: 2)
        XCTAssertEqual(value, [7, 8], "the slave serves the next client")
    }
}
