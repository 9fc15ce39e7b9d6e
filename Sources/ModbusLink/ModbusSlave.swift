import CModbus
import Foundation
import Glibc
import LastsetCore

/// A Modbus server built on libmodbus (`modbus_receive` / `modbus_reply`), serving holding and input
/// registers over TCP (several clients, one `poll` loop) or RTU on a tty. It runs on its own thread,
/// records every write request in order, and can inject faults (`SlaveFaults`).
public final class ModbusSlave: @unchecked Sendable {
    /// Where a slave listens.
    public enum Listen: Sendable, Hashable {
        /// TCP on `host:port`; port 0 lets the OS pick a free one (see `port`).
        case tcp(host: String, port: Int)
        /// RTU on a serial line, answering `unit`.
        case rtu(Endpoint.SerialLine, unit: Int)
    }

    /// Where this slave listens (as configured).
    public let listen: Listen

    private let lock = NSLock()
    private let mapping: UnsafeMutablePointer<modbus_mapping_t>
    private var currentFaults: SlaveFaults
    private var received: [SlaveWrite] = []
    private var requests = 0
    private var boundPort = 0
    private var thread: Thread?
    private var wakePipe: (read: Int32, write: Int32) = (-1, -1)
    private let finished = DispatchSemaphore(value: 0)
    private var running = false
    private let writeObserver: (@Sendable (SlaveWrite) -> Void)?
    private let frameObserver: (@Sendable (SlaveFrame) -> Void)?
    private var peers: [Int32: String] = [:]
    private var inspectionUnit: Int?

    /// A stopped slave with all 65536 holding and input registers at 0; `onWrite` is called (on the
    /// slave's thread) for each write request, before it is answered. `onFrame` is called (on the slave's
    /// thread) for every request — reads with the words about to be answered — before it is answered and
    /// before a write is stored; the slave serves nothing else while it runs, so an observer that blocks
    /// holds the request (and every later one) until it returns.
    public init(
        listen: Listen, faults: SlaveFaults = SlaveFaults(), onWrite: (@Sendable (SlaveWrite) -> Void)? = nil,
        onFrame: (@Sendable (SlaveFrame) -> Void)? = nil
    ) throws(ModbusError) {
        self.listen = listen
        self.currentFaults = faults
        self.writeObserver = onWrite
        self.frameObserver = onFrame
        guard let mapping = modbus_mapping_new_start_address(0, 0, 0, 0, 0, 65536, 0, 65536) else {
            let err = cmodbus_errno()
            throw ModbusError(kind: .protocolError, errno: err, message: "cannot allocate register map", request: "slave")
        }
        self.mapping = mapping
    }

    deinit {
        stop()
        modbus_mapping_free(mapping)
    }

    // MARK: Registers

    /// Sets holding registers from `address` on.
    public func setHoldingRegisters(address: Int, values: [UInt16]) {
        lock.withLock { store(values, at: address, into: mapping.pointee.tab_registers) }
    }

    /// Sets input registers from `address` on.
    public func setInputRegisters(address: Int, values: [UInt16]) {
        lock.withLock { store(values, at: address, into: mapping.pointee.tab_input_registers) }
    }

    /// The current holding registers `address ..< address + count`.
    public func holdingRegisters(address: Int, count: Int) -> [UInt16] {
        lock.withLock { (address..<min(address + count, 65536)).map { mapping.pointee.tab_registers[$0] } }
    }

    /// The current input registers `address ..< address + count`.
    public func inputRegisters(address: Int, count: Int) -> [UInt16] {
        lock.withLock { (address..<min(address + count, 65536)).map { mapping.pointee.tab_input_registers[$0] } }
    }

    private func store(_ values: [UInt16], at address: Int, into table: UnsafeMutablePointer<UInt16>) {
        for (i, value) in values.enumerated() where address + i < 65536 { table[address + i] = value }
    }

    // MARK: Observation

    /// The fault settings; may be changed while running.
    public var faults: SlaveFaults {
        get { lock.withLock { currentFaults } }
        set { lock.withLock { currentFaults = newValue } }
    }

    /// Requests to this unit see none of the faults (a test's own inspection reads through a faulty slave).
    public var faultFreeUnit: Int? {
        get { lock.withLock { inspectionUnit } }
        set { lock.withLock { inspectionUnit = newValue } }
    }

    /// Every write request received so far, in order (refused ones carry their exception).
    public var writes: [SlaveWrite] { lock.withLock { received } }

    /// Forgets the recorded writes and the request count.
    public func clearLog() {
        lock.withLock {
            received.removeAll()
            requests = 0
        }
    }

    /// Requests received so far (reads and writes, answered or not).
    public var requestCount: Int { lock.withLock { requests } }

    /// The TCP port actually bound (after `start`), 0 for RTU.
    public var port: Int { lock.withLock { boundPort } }

    /// `tcp 127.0.0.1:PORT` or `rtu PATH`, as printed on a READY line.
    public var listenDescription: String {
        switch listen {
        case .tcp(let host, _): return "tcp \(host):\(port)"
        case .rtu(let line, _): return "rtu \(line.path)"
        }
    }

    /// The endpoint a client uses to reach this slave.
    public var endpoint: Endpoint {
        switch listen {
        case .tcp(let host, _): return .tcp(host: host, port: port)
        case .rtu(let line, _): return .rtu(line)
        }
    }

    // MARK: Running

    /// Binds (TCP) or opens (RTU) synchronously, then serves on a new thread until `stop()`.
    public func start() throws(ModbusError) {
        guard !lock.withLock({ running }) else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else {
            let err = cmodbus_errno()
            throw ModbusError(
                kind: .connect, errno: err, message: "pipe: \(String(cString: strerror(err)))", request: "slave start")
        }
        let wake = (read: fds[0], write: fds[1])
        let serve: @Sendable () -> Void
        switch listen {
        case .tcp(let host, let port):
            guard let ctx = modbus_new_tcp(host, Int32(port)) else {
                let err = cmodbus_errno()
                closePipe(wake)
                throw ModbusError(
                    kind: .connect, errno: err, message: "cannot create TCP context for \(host):\(port): \(Self.text(err))",
                    request: "slave start")
            }
            let listenFD = modbus_tcp_listen(ctx, 16)
            guard listenFD >= 0 else {
                let err = cmodbus_errno()
                modbus_free(ctx)
                closePipe(wake)
                throw ModbusError(
                    kind: .connect, errno: err, message: "cannot listen on \(host):\(port): \(Self.text(err))",
                    request: "slave start")
            }
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listenFD, $0, &length) }
            }
            lock.withLock { boundPort = Int(UInt16(bigEndian: address.sin_port)) }
            let context = ModbusContext(ctx)
            serve = { [self] in self.serveTCP(context, listenFD: listenFD, wake: wake.read) }
        case .rtu(let line, let unit):
            let parity = CChar(line.parity.asciiValue ?? UInt8(ascii: "N"))
            guard let ctx = modbus_new_rtu(line.path, Int32(line.baud), parity, Int32(line.dataBits), Int32(line.stopBits)) else {
                let err = cmodbus_errno()
                closePipe(wake)
                throw ModbusError(
                    kind: .connect, errno: err, message: "cannot create RTU context for \(line.path): \(Self.text(err))",
                    request: "slave start")
            }
            modbus_set_slave(ctx, Int32(unit))
            guard modbus_connect(ctx) == 0 else {
                let err = cmodbus_errno()
                modbus_free(ctx)
                closePipe(wake)
                throw ModbusError(
                    kind: .connect, errno: err, message: "cannot open \(line.path): \(Self.text(err))", request: "slave start")
            }
            let context = ModbusContext(ctx)
            serve = { [self] in self.serveRTU(context, wake: wake.read) }
        }
        let thread = Thread { [self] in
            serve()
            self.finished.signal()
        }
        thread.name = "ModbusSlave \(listen)"
        lock.withLock {
            wakePipe = wake
            running = true
            self.thread = thread
        }
        thread.start()
    }

    /// Stops serving, closes every socket and waits for the thread to end; idempotent.
    public func stop() {
        let (wasRunning, wake) = lock.withLock { () -> (Bool, (read: Int32, write: Int32)) in
            defer { running = false }
            return (running, wakePipe)
        }
        guard wasRunning else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        finished.wait()
        closePipe(wake)
        lock.withLock { thread = nil }
    }

    private func closePipe(_ wake: (read: Int32, write: Int32)) {
        Glibc.close(wake.read)
        Glibc.close(wake.write)
    }

    private func serveTCP(_ context: ModbusContext, listenFD: Int32, wake: Int32) {
        let ctx = context.pointer
        var clients: [Int32] = []
        var query = [UInt8](repeating: 0, count: 512)
        defer {
            // The context still names the last client socket: detach it, or freeing the context would
            // close that number a second time — by then perhaps another thread's fresh descriptor.
            modbus_set_socket(ctx, -1)
            for fd in clients { Glibc.close(fd) }
            Glibc.close(listenFD)
        }
        while true {
            var fds = [
                pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: listenFD, events: Int16(POLLIN), revents: 0),
            ]
            fds += clients.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            let n = poll(&fds, nfds_t(fds.count), -1)
            if n < 0 {
                if cmodbus_errno() == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }
            if fds[1].revents & Int16(POLLIN) != 0 {
                let fd = accept(listenFD, nil, nil)
                // libmodbus's receive waits with select(), which aborts the process on a descriptor at or
                // above FD_SETSIZE: such a client is hung up on at once.
                if fd >= Int32(FD_SETSIZE) {
                    Glibc.close(fd)
                } else if fd >= 0 {
                    clients.append(fd)
                    if frameObserver != nil { peers[fd] = Self.peerName(fd) }
                }
            }
            for entry in fds.dropFirst(2) where entry.revents != 0 {
                modbus_set_socket(ctx, entry.fd)
                let rc = query.withUnsafeMutableBufferPointer { modbus_receive(ctx, $0.baseAddress) }
                if rc > 0 {
                    handle(ctx, query: query, length: Int(rc), peer: peers[entry.fd])
                } else if rc == -1 {
                    // Closed by the peer or unreadable: forget this client (and detach it from the context).
                    modbus_set_socket(ctx, -1)
                    Glibc.close(entry.fd)
                    clients.removeAll { $0 == entry.fd }
                    peers[entry.fd] = nil
                }
            }
        }
    }

    private func serveRTU(_ context: ModbusContext, wake: Int32) {
        let ctx = context.pointer
        let fd = modbus_get_socket(ctx)
        var query = [UInt8](repeating: 0, count: 512)
        while true {
            var fds = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: fd, events: Int16(POLLIN), revents: 0)]
            let n = poll(&fds, 2, -1)
            if n < 0 {
                if cmodbus_errno() == EINTR { continue }
                return
            }
            if fds[0].revents != 0 { return }
            if fds[1].revents & Int16(POLLIN) == 0 {
                // Hang-up or error on the line without data: do not spin.
                usleep(10_000)
                continue
            }
            let rc = query.withUnsafeMutableBufferPointer { modbus_receive(ctx, $0.baseAddress) }
            if rc > 0 {
                handle(ctx, query: query, length: Int(rc), peer: nil)
            } else if rc == -1 {
                modbus_flush(ctx)
            }
        }
    }

    /// Applies the faults, records writes, and answers one request.
    private func handle(_ ctx: OpaquePointer, query: [UInt8], length: Int, peer: String?) {
        let offset = Int(modbus_get_header_length(ctx))
        guard length >= offset + 1 else { return }
        let unit = Int(query[offset - 1])
        let faults = lock.withLock { () -> SlaveFaults in
            requests += 1
            return unit == inspectionUnit ? SlaveFaults() : currentFaults
        }
        if faults.responseDelay > .zero {
            let (s, atto) = faults.responseDelay.components
            usleep(UInt32(s) * 1_000_000 + UInt32(atto / 1_000_000_000_000))
        }
        let request = Request(query: query, length: length, offset: offset)
        let exception = Self.exception(for: request, under: faults)
        if request.isWrite {
            let write = SlaveWrite(
                function: request.function, unit: unit, address: request.address, values: request.values,
                exception: exception)
            lock.withLock { received.append(write) }
            writeObserver?(write)
        }
        if let frameObserver {
            frameObserver(
                SlaveFrame(
                    function: request.function, unit: unit, address: request.address, count: request.count,
                    values: answeredWords(request, exception: exception), exception: exception, peer: peer))
        }
        if let exception {
            modbus_reply_exception(ctx, query, UInt32(exception))
            return
        }
        lock.withLock {
            _ = modbus_reply(ctx, query, Int32(length), mapping)
            if request.isWrite { applyAfterWrite(request, faults) }
        }
    }

    /// The parts of a request the faults and the frame log look at.
    private struct Request {
        let function: UInt8
        let address: Int
        /// Registers read or written (0 for other functions).
        let count: Int
        /// The words written (FC06, FC16).
        let values: [UInt16]

        init(query: [UInt8], length: Int, offset: Int) {
            func word(_ at: Int) -> Int { at + 1 < length ? Int(query[at]) << 8 | Int(query[at + 1]) : 0 }
            function = query[offset]
            address = word(offset + 1)
            switch function {
            case 3, 4:
                count = word(offset + 3)
                values = []
            case 6:
                count = 1
                values = [UInt16(word(offset + 3))]
            case 16:
                let n = word(offset + 3)
                count = n
                values = (0..<n).map { UInt16(word(offset + 6 + 2 * $0)) }
            default:
                count = 0
                values = []
            }
        }

        var isWrite: Bool { function == 6 || function == 16 }
    }

    /// The exception the faults make the request answer, if any: a read over `maxReadRegisters`, a refused FC16, an
    /// address with an exception, a whole 32-bit value above its limit.
    private static func exception(for request: Request, under faults: SlaveFaults) -> UInt8? {
        let (function, address, count, values) = (request.function, request.address, request.count, request.values)
        if function == 3 || function == 4, let max = faults.maxReadRegisters, count > max { return 3 }
        if function == 16 && faults.refuseFC16 { return 1 }
        if count > 0 {
            for a in address..<(address + count) {
                if let code = faults.exceptions[a] { return code }
            }
        }
        if function == 16 {
            // A whole 32-bit value above its limit is an illegal data value; half of one cannot be judged.
            for (a, limit) in faults.maxU32 where a >= address && a + 1 < address + count {
                let value = UInt32(values[a - address]) << 16 | UInt32(values[a - address + 1])
                if value > limit { return 3 }
            }
        }
        return nil
    }

    /// The words the frame log shows: those written, or those a read is about to be answered with.
    private func answeredWords(_ request: Request, exception: UInt8?) -> [UInt16] {
        guard (request.function == 3 || request.function == 4) && exception == nil else { return request.values }
        // The words modbus_reply is about to answer (it reads the same tables under the same lock).
        return lock.withLock {
            let table = request.function == 3 ? mapping.pointee.tab_registers! : mapping.pointee.tab_input_registers!
            return (request.address..<min(request.address + request.count, 65536)).map { table[$0] }
        }
    }

    /// After a write is answered: the clamps and the registers a write resets (called under the lock).
    private func applyAfterWrite(_ request: Request, _ faults: SlaveFaults) {
        let (address, count) = (request.address, request.count)
        for (a, limit) in faults.clamps where a >= address && a < address + count && a < 65536 {
            if mapping.pointee.tab_registers[a] > limit { mapping.pointee.tab_registers[a] = limit }
        }
        for a in faults.roundF32 where a >= address && a + 1 < address + count {
            let table = mapping.pointee.tab_registers!
            let value = Float(bitPattern: UInt32(table[a]) << 16 | UInt32(table[a + 1]))
            guard value.isFinite else { continue }
            let bits = ((value * 10).rounded() / 10).bitPattern
            table[a] = UInt16(bits >> 16)
            table[a + 1] = UInt16(bits & 0xFFFF)
        }
        for (a, resets) in faults.dependents where a >= address && a < address + count {
            for (other, value) in resets where other < 65536 { mapping.pointee.tab_registers[other] = value }
        }
    }

    /// `address:port` of a connected TCP client, `?` when the kernel cannot say.
    private static func peerName(_ fd: Int32) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let rc = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(fd, $0, &length) }
        }
        guard rc == 0, storage.ss_family == sa_family_t(AF_INET) else { return "?" }
        return withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin -> String in
                var addr = sin.pointee.sin_addr
                var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                inet_ntop(AF_INET, &addr, &text, socklen_t(text.count))
                return String(cString: text) + ":" + String(UInt16(bigEndian: sin.pointee.sin_port))
            }
        }
    }

    private static func text(_ err: Int32) -> String {
        String(cString: modbus_strerror(err))
    }
}
