import CModbus
import Dispatch
import LastsetSystem
import Glibc
import LastsetCore

/// One libmodbus context (one TCP peer, or one serial line shared by all its units), owned by an actor
/// whose executor is a private serial queue: blocking libmodbus calls never run on the cooperative pool.
///
/// The context is opened on the first request and reopened after a dropped connection. Error recovery
/// is `MODBUS_ERROR_RECOVERY_PROTOCOL` (never LINK, which can retry forever). After a timeout or a
/// protocol error on TCP the socket is closed, so a late reply can never be taken for the answer to a
/// later request; on RTU the line is left quiet for one more timeout and flushed.
public actor ModbusConnection {
    /// Where this connection goes.
    public let endpoint: Endpoint
    /// Default options of requests that do not pass their own.
    public let options: LinkOptions

    private let executor: DispatchQueueExecutor
    private var context: ModbusContext?
    /// The framing the open serial context was created with.
    private var openLine: LineSettings?
    private var appliedTimeout: Duration?
    private var lastRequestEnd: ContinuousClock.Instant?
    private var requestCounters = RequestCounters()
    private var lastCallFrames = CallFrames()
    /// Per unit: several devices (units) can share one serial line, each with its own counters.
    private var unitCounters: [Int: LinkCounters] = [:]

    /// The actor's executor: its private serial queue.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// A connection to `endpoint`; nothing is opened until the first request.
    public init(endpoint: Endpoint, options: LinkOptions = LinkOptions()) {
        self.endpoint = endpoint
        self.options = options
        self.executor = DispatchQueueExecutor(label: "lastset.modbus \(endpoint.connectionKey)")
    }

    // MARK: Requests

    /// FC03: reads `count` (1...125) holding registers from `address`.
    public func readHoldingRegisters(unit: Int, address: Int, count: Int, options: LinkOptions? = nil) throws(ModbusError)
        -> [UInt16]
    {
        try read(function: 3, unit: unit, address: address, count: count, options: options)
    }

    /// FC04: reads `count` (1...125) input registers from `address`.
    public func readInputRegisters(unit: Int, address: Int, count: Int, options: LinkOptions? = nil) throws(ModbusError)
        -> [UInt16]
    {
        try read(function: 4, unit: unit, address: address, count: count, options: options)
    }

    /// FC06: writes one holding register (unit 0 broadcasts; on RTU that returns after the response
    /// timeout, as no slave answers a broadcast).
    public func writeRegister(unit: Int, address: Int, value: UInt16, options: LinkOptions? = nil) throws(ModbusError) {
        let request = "write \(address) (FC06, unit \(unit))"
        try validate(unit: unit, address: address, count: 1, maxCount: 1, allowBroadcast: true, request: request)
        try perform(request: request, unit: unit, isWrite: true, options: options ?? self.options) { ctx in
            modbus_write_register(ctx, Int32(address), value)
        }
    }

    /// FC16: writes `values` (1...123 of them) to consecutive holding registers (unit 0 broadcasts).
    public func writeRegisters(unit: Int, address: Int, values: [UInt16], options: LinkOptions? = nil) throws(ModbusError) {
        let request = "write \(address)+\(values.count) (FC16, unit \(unit))"
        try validate(unit: unit, address: address, count: values.count, maxCount: 123, allowBroadcast: true, request: request)
        try perform(request: request, unit: unit, isWrite: true, options: options ?? self.options) { ctx in
            values.withUnsafeBufferPointer { modbus_write_registers(ctx, Int32(address), Int32(values.count), $0.baseAddress) }
        }
    }

    /// Runs `body` on this connection's executor in one hop: a sequence of requests (a read plan, a
    /// write and its read-back) without a thread switch between them. Other users of the connection
    /// (other units on the same serial line) wait until `body` returns, so keep it short.
    public func batch<T: Sendable>(_ body: @Sendable (isolated ModbusConnection) throws -> T) rethrows -> T {
        try body(self)
    }

    /// Requests issued so far.
    public var counters: RequestCounters { requestCounters }

    /// The frames of the most recent request call (read it in the same `batch`, right after the call).
    public var lastCall: CallFrames { lastCallFrames }

    /// Sets the counters back to zero.
    public func resetCounters() {
        requestCounters = RequestCounters()
        unitCounters = [:]
    }

    /// What requests to `unit` met on the wire so far; nil before the first one.
    public func linkCounters(unit: Int) -> LinkCounters? { unitCounters[unit] }

    /// Whether a libmodbus context is currently open.
    public var isOpen: Bool { context != nil }

    /// Leaves a serial line quiet for `timeout` and discards whatever arrived: what requests sent with
    /// `LinkOptions.drainsLateReplies` off leave to do before the line is anyone else's (a late reply is never taken
    /// for the next answer). Nothing on TCP (a timeout closed the socket) or when no context is open.
    public func drainLine(for timeout: Duration) {
        guard case .rtu = endpoint, let context else { return }
        pause(timeout)
        modbus_flush(context.pointer)
    }

    /// Closes the context; the next request reconnects.
    public func close() {
        context = nil
        openLine = nil
        appliedTimeout = nil
    }

    // MARK: Implementation

    private func read(function: UInt8, unit: Int, address: Int, count: Int, options: LinkOptions?) throws(ModbusError) -> [UInt16]
    {
        let request = "read \(address)+\(count) (FC0\(function), unit \(unit))"
        try validate(unit: unit, address: address, count: count, maxCount: 125, allowBroadcast: false, request: request)
        var words = [UInt16](repeating: 0, count: count)
        try perform(request: request, unit: unit, isWrite: false, options: options ?? self.options) { ctx in
            words.withUnsafeMutableBufferPointer { buffer in
                function == 3
                    ? modbus_read_registers(ctx, Int32(address), Int32(count), buffer.baseAddress)
                    : modbus_read_input_registers(ctx, Int32(address), Int32(count), buffer.baseAddress)
            }
        }
        return words
    }

    private func validate(unit: Int, address: Int, count: Int, maxCount: Int, allowBroadcast: Bool, request: String)
        throws(ModbusError)
    {
        func invalid(_ why: String) -> ModbusError {
            ModbusError(kind: .invalidRequest, errno: 0, message: why, request: request)
        }
        let units = allowBroadcast ? 0...247 : 1...247
        guard units.contains(unit) else {
            throw invalid(
                "unit \(unit) is not in \(units.lowerBound)...\(units.upperBound)"
                    + (unit == 0 ? " (0 is broadcast, writes only)" : ""))
        }
        guard (1...maxCount).contains(count) else { throw invalid("count \(count) is not in 1...\(maxCount)") }
        guard (0...65535).contains(address) else { throw invalid("address \(address) is not in 0...65535") }
        guard address + count <= 65536 else { throw invalid("address \(address) + count \(count) runs past 65535") }
    }

    /// Runs one request with retries of transient faults and bounded exponential backoff.
    func perform(request: String, unit: Int, isWrite: Bool, options: LinkOptions, _ call: (OpaquePointer) -> Int32)
        throws(ModbusError)
    {
        var attempt = 0
        lastCallFrames = CallFrames()
        while true {
            let sentBefore = lastCallFrames.sent
            do throws(ModbusError) {
                try attemptOnce(request: request, unit: unit, isWrite: isWrite, options: options, call)
                return
            } catch {
                if lastCallFrames.sent > sentBefore && error.exceptionCode == nil { lastCallFrames.unanswered += 1 }
                count(error, unit: unit)
                guard error.isTransient, attempt < max(0, options.retries) else { throw error }
                // 20 ms, 40 ms, 80 ms, … capped at 500 ms. Sleeping blocks only this connection's queue.
                let backoffMs = min(20 << min(attempt, 10), 500)
                pause(.milliseconds(backoffMs))
                attempt += 1
                requestCounters.retries += 1
                unitCounters[unit, default: LinkCounters()].retries += 1
            }
        }
    }

    private func attemptOnce(request: String, unit: Int, isWrite: Bool, options: LinkOptions, _ call: (OpaquePointer) -> Int32)
        throws(ModbusError)
    {
        let ctx = try open(options: options, request: request)
        if options.timeout != appliedTimeout { applyTimeout(ctx, options.timeout) }
        if let last = lastRequestEnd, options.requestDelay > .zero {
            let wait = options.requestDelay - (ContinuousClock.now - last)
            if wait > .zero { pause(wait) }
        }
        if modbus_set_slave(ctx, Int32(unit)) == -1 {
            let err = cmodbus_errno()
            throw ModbusError(kind: .invalidRequest, errno: err, message: Self.text(err), request: request)
        }
        if isWrite { requestCounters.writes += 1 } else { requestCounters.reads += 1 }
        lastCallFrames.sent += 1
        unitCounters[unit, default: LinkCounters()].requests += 1
        let rc = call(ctx)
        let err = cmodbus_errno()
        lastRequestEnd = .now
        guard rc == -1 else { return }
        if unit == 0, err == ETIMEDOUT, case .rtu = endpoint {
            // A broadcast gets no reply on a serial line, but libmodbus 3.1.6 waits for one anyway:
            // the timeout is the expected end of a broadcast, not a failure.
            modbus_flush(ctx)
            return
        }
        throw classify(err, ctx: ctx, request: request, drain: options.drainsLateReplies)
    }

    /// Counts a failed attempt in the unit's link counters.
    private func count(_ error: ModbusError, unit: Int) {
        switch error.kind {
        case .badCRC: unitCounters[unit, default: LinkCounters()].crcErrors += 1
        case .badReply: unitCounters[unit, default: LinkCounters()].badReplies += 1
        case .timeout: unitCounters[unit, default: LinkCounters()].timeouts += 1
        case .exception: unitCounters[unit, default: LinkCounters()].exceptions += 1
        case .connect, .disconnected, .protocolError, .invalidRequest: break
        }
    }

    private func classify(_ err: Int32, ctx: OpaquePointer, request: String, drain: Bool) -> ModbusError {
        let message = Self.text(err)
        let base = Int32(MODBUS_ENOBASE)
        if err > base && err <= base + 0x0B {
            // EMBXILFUN … EMBXGTAR: the device answered with an exception.
            return ModbusError(kind: .exception(UInt8(err - base)), errno: err, message: message, request: request)
        }
        switch err {
        case ETIMEDOUT:
            if case .tcp = endpoint {
                close()
            } else {
                // A serial line has no transaction ids: a late reply to this request would be taken for
                // the answer to the next one. Let it arrive for one more timeout, then discard it.
                if drain { pause(appliedTimeout ?? options.timeout) }
                modbus_flush(ctx)
            }
            return ModbusError(kind: .timeout, errno: err, message: message, request: request)
        case ECONNRESET, EPIPE, ENOTCONN, ECONNABORTED, ECONNREFUSED, EBADF, ESHUTDOWN, EIO, ENXIO, EHOSTUNREACH, ENETUNREACH:
            close()
            return ModbusError(kind: .disconnected, errno: err, message: message, request: request)
        default:
            // Bad CRC, bad data, wrong transaction: libmodbus (PROTOCOL recovery) already waited and flushed;
            // on TCP a fresh socket is the only sure way to leave a desynchronised stream behind. Either way
            // the next attempt starts clean, so a garbled reply is transient.
            if case .tcp = endpoint { close() } else { modbus_flush(ctx) }
            switch err {
            case base + 12:  // EMBBADCRC
                return ModbusError(kind: .badCRC, errno: err, message: message, request: request)
            case base + 13, base + 14, base + 17:  // EMBBADDATA (transaction id, function), EMBBADEXC, EMBBADSLAVE
                return ModbusError(kind: .badReply, errno: err, message: message, request: request)
            case EAGAIN:
                // libmodbus 3.1.6 rejects a reply with another transaction id (or function) and then flushes, and
                // the flush's non-blocking recv overwrites errno with EAGAIN: the reply was refused, not missing.
                return ModbusError(
                    kind: .badReply, errno: err,
                    message: "the reply did not belong to the request (wrong transaction id or function) and was discarded",
                    request: request)
            default:
                return ModbusError(kind: .protocolError, errno: err, message: message, request: request)
            }
        }
    }

    private func open(options: LinkOptions, request: String) throws(ModbusError) -> OpaquePointer {
        // What is opened: the endpoint, on a serial line with the framing this request asks for.
        var opening = endpoint
        if case .rtu(var line) = endpoint, let wanted = options.line {
            (line.baud, line.parity, line.dataBits, line.stopBits) = (
                wanted.baud, wanted.parity, wanted.dataBits, wanted.stopBits
            )
            opening = .rtu(line)
        }
        if let context {
            if openLine == opening.lineSettings { return context.pointer }
            close()
        }
        let created: OpaquePointer?
        switch opening {
        case .tcp(let host, let port):
            created = modbus_new_tcp_pi(host, String(port))
        case .rtu(let line):
            // Decided before anything is opened: libmodbus opens the path O_RDWR and only then finds it is no
            // terminal, and opening some files acts by itself (a FIFO, /dev/watchdog).
            var st = stat()
            guard stat(line.path, &st) == 0 else {
                let err = cmodbus_errno()
                throw ModbusError(
                    kind: .connect, errno: err, message: "cannot open \(opening): \(String(cString: strerror(err)))",
                    request: request)
            }
            let (kind, subsystem) = Self.serialKind(st)
            if let refusal = SerialDeviceRule.refusal(kind, subsystem: subsystem) {
                throw ModbusError(
                    kind: .invalidRequest, errno: ENOTTY,
                    message: "\(opening): \(line.path) is not a serial device: \(refusal) (expected e.g. /dev/ttyUSB0)",
                    request: request)
            }
            let parity = CChar(line.parity.asciiValue ?? UInt8(ascii: "N"))
            created = modbus_new_rtu(line.path, Int32(line.baud), parity, Int32(line.dataBits), Int32(line.stopBits))
        }
        guard let ctx = created else {
            let err = cmodbus_errno()
            throw ModbusError(
                kind: .connect, errno: err, message: "cannot create context for \(opening): \(Self.text(err))", request: request)
        }
        modbus_set_error_recovery(ctx, MODBUS_ERROR_RECOVERY_PROTOCOL)
        applyTimeout(ctx, options.timeout)
        // libmodbus waits with select(): a descriptor at or above FD_SETSIZE would abort the whole process
        // (glibc's fd_set check) inside modbus_connect or the first receive. The socket takes the lowest
        // free number, so look at that first, then at the one it got.
        if let refusal = Self.descriptorRefusal(Self.lowestFreeDescriptor(), opening: opening, request: request) {
            modbus_free(ctx)
            appliedTimeout = nil
            throw refusal
        }
        if modbus_connect(ctx) == -1 {
            let err = cmodbus_errno()
            modbus_free(ctx)
            appliedTimeout = nil
            throw ModbusError(
                kind: .connect, errno: err, message: "cannot connect to \(opening): \(Self.text(err))", request: request)
        }
        if let refusal = Self.descriptorRefusal(modbus_get_socket(ctx), opening: opening, request: request) {
            modbus_close(ctx)
            modbus_free(ctx)
            appliedTimeout = nil
            throw refusal
        }
        requestCounters.connects += 1
        context = ModbusContext(ctx)
        openLine = opening.lineSettings
        return ctx
    }

    /// The number the next descriptor opened would get.
    private static func lowestFreeDescriptor() -> Int32 {
        let fd = Glibc.open("/dev/null", O_RDONLY | O_CLOEXEC)
        if fd >= 0 { Glibc.close(fd) }
        return fd
    }

    /// A refusal when `fd` cannot be waited on by libmodbus's select() (at or above FD_SETSIZE).
    private static func descriptorRefusal(_ fd: Int32, opening: Endpoint, request: String) -> ModbusError? {
        guard fd >= Int32(FD_SETSIZE) else { return nil }
        return ModbusError(
            kind: .connect, errno: EMFILE,
            message: "cannot connect to \(opening): the process has \(fd) descriptors open and libmodbus waits with "
                + "select(), which takes none at or above \(FD_SETSIZE); close connections or devices",
            request: request)
    }

    private func applyTimeout(_ ctx: OpaquePointer, _ timeout: Duration) {
        let micros = max(1000, timeout.components.seconds * 1_000_000 + timeout.components.attoseconds / 1_000_000_000_000)
        modbus_set_response_timeout(ctx, UInt32(micros / 1_000_000), UInt32(micros % 1_000_000))
        appliedTimeout = timeout
    }

    private func pause(_ duration: Duration) {
        let (seconds, atto) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(atto / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && cmodbus_errno() == EINTR { request = remaining }
    }

    /// What `stat` found, and for a character device its sysfs class (`/sys/dev/char/M:N/subsystem`).
    private static func serialKind(_ st: stat) -> (SerialDeviceRule.FileKind, String?) {
        switch st.st_mode & S_IFMT {
        case S_IFCHR:
            let dev = UInt64(st.st_rdev)
            let major = UInt32(truncatingIfNeeded: ((dev >> 8) & 0xfff) | ((dev >> 32) & ~UInt64(0xfff)))
            let minor = UInt32(truncatingIfNeeded: (dev & 0xff) | ((dev >> 12) & ~UInt64(0xff)))
            var link = [CChar](repeating: 0, count: 4096)
            let n = readlink("/sys/dev/char/\(major):\(minor)/subsystem", &link, link.count - 1)
            let subsystem = n > 0 ? String(cString: link).split(separator: "/").last.map(String.init) : nil
            return (.characterDevice(major: major, minor: minor), subsystem)
        case S_IFREG: return (.regularFile, nil)
        case S_IFDIR: return (.directory, nil)
        case S_IFIFO: return (.fifo, nil)
        case S_IFSOCK: return (.socket, nil)
        case S_IFBLK: return (.blockDevice, nil)
        default: return (.other, nil)
        }
    }

    private static func text(_ err: Int32) -> String {
        String(cString: modbus_strerror(err))
    }
}
