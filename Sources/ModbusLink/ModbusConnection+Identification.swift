import CModbus
import Glibc
import LastsetCore

/// FC43/14, Read Device Identification. libmodbus 3.1.6 has no call for it and cannot receive its answer
/// (`modbus_receive_confirmation` computes no length for function 0x2B: it returns after one byte of the PDU and
/// leaves the rest on the line), so the request goes out with `modbus_send_raw_request` and the answer is read
/// from the context's descriptor here, its length taken from its own fields (`IdentificationFrame`). Like every
/// libmodbus call it runs on the connection's executor, with the same retries, counters and recovery
/// (a timeout closes a TCP socket; a serial line is left quiet for a timeout and flushed).
extension ModbusConnection {
    /// Reads the device's whole identification (basic, then regular or extended as its conformity level says, up to
    /// `upTo`), following "more follows" across requests; each answer is parsed strictly by LastsetCore.
    public func readIdentification(unit: Int, upTo: IdentificationCategory = .extended, options: LinkOptions? = nil)
        throws(ModbusError) -> DeviceIdentification
    {
        var reading = DeviceIdentificationReading(upTo: upTo)
        while let next = reading.request {
            let pdu = try readDeviceIdentification(unit: unit, category: next.category, from: next.objectId, options: options)
            do {
                try reading.take(DeviceIdentificationAnswer.parse(pdu, asked: next.category))
            } catch {
                throw ModbusError(
                    kind: .protocolError, errno: 0, message: "malformed identification answer: \(error.message)",
                    request: Self.identificationRequest(unit: unit, category: next.category, from: next.objectId))
            }
        }
        guard let result = reading.result else {
            throw ModbusError(
                kind: .protocolError, errno: 0, message: "identification ended without an answer",
                request: Self.identificationRequest(unit: unit, category: .basic, from: 0))
        }
        return result
    }

    /// One FC43/14 stream request for `category` from `objectId`; returns the answer's PDU (function code on).
    /// An exception answer throws it (01: the device has no device identification).
    public func readDeviceIdentification(
        unit: Int, category: IdentificationCategory, from objectId: UInt8, options: LinkOptions? = nil
    ) throws(ModbusError) -> [UInt8] {
        let request = Self.identificationRequest(unit: unit, category: category, from: objectId)
        guard (1...247).contains(unit) else {
            throw ModbusError(kind: .invalidRequest, errno: 0, message: "unit \(unit) is not in 1...247", request: request)
        }
        let raw = [UInt8(unit)] + DeviceIdentificationAnswer.request(category, from: objectId)
        let options = options ?? self.options
        let isTCP: Bool
        if case .tcp = endpoint { isTCP = true } else { isTCP = false }
        var answer: [UInt8] = []
        try perform(request: request, unit: unit, isWrite: false, options: options) { ctx in
            Self.exchange(ctx, raw: raw, isTCP: isTCP, timeout: options.timeout, answer: &answer)
        }
        return answer
    }

    static func identificationRequest(unit: Int, category: IdentificationCategory, from objectId: UInt8) -> String {
        "read device identification \(category) from \(IdentificationObjectId(rawValue: objectId)) (FC43/14, unit \(unit))"
    }

    /// Sends `raw` (unit + PDU) and reads the whole answer into `answer` (its PDU). Returns 0, or -1 with errno
    /// set as libmodbus would: ETIMEDOUT, ECONNRESET, EMBBADCRC, EMBBADDATA, EMBBADSLAVE, or the exception's code.
    private static func exchange(
        _ ctx: OpaquePointer, raw: [UInt8], isTCP: Bool, timeout: Duration, answer: inout [UInt8]
    ) -> Int32 {
        var request = raw
        guard modbus_send_raw_request(ctx, &request, Int32(request.count)) != -1 else { return -1 }
        let base = Int32(MODBUS_ENOBASE)
        var frame: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let need = isTCP ? IdentificationFrame.tcp(frame) : IdentificationFrame.rtu(frame)
            let total: Int
            switch need {
            case .invalid:
                cmodbus_set_errno(base + 13)  // EMBBADDATA
                return -1
            case .complete(let n) where frame.count >= n: total = n
            case .complete(let n), .atLeast(let n): total = -n
            }
            if total > 0 { break }
            guard receive(modbus_get_socket(ctx), into: &frame, upTo: -total, deadline: deadline) else { return -1 }
        }
        let pdu: ArraySlice<UInt8>
        if isTCP {
            // libmodbus sends a raw request with transaction id 0; another id answers another request.
            guard frame[0] == 0, frame[1] == 0 else {
                cmodbus_set_errno(base + 13)
                return -1
            }
            pdu = frame[IdentificationFrame.mbapLength...]
        } else {
            guard IdentificationFrame.crcMatches(frame) else {
                cmodbus_set_errno(base + 12)  // EMBBADCRC
                return -1
            }
            guard frame[0] == raw[0] else {
                cmodbus_set_errno(base + 17)  // EMBBADSLAVE
                return -1
            }
            pdu = frame[1..<(frame.count - 2)]
        }
        if pdu.first == 0xAB {
            let code = pdu.count == 2 ? Int32(pdu[pdu.startIndex + 1]) : 0
            cmodbus_set_errno((1...0x0B).contains(code) ? base + code : base + 14)  // the exception, or EMBBADEXC
            return -1
        }
        answer = Array(pdu)
        return 0
    }

    /// Reads up to `count` bytes more of the frame before `deadline`; false with errno set on a timeout or a
    /// broken connection.
    private static func receive(_ fd: Int32, into frame: inout [UInt8], upTo count: Int, deadline: ContinuousClock.Instant)
        -> Bool
    {
        var buffer = [UInt8](repeating: 0, count: count - frame.count)
        while true {
            let left = deadline - .now
            let ms = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
            guard left > .zero else {
                cmodbus_set_errno(ETIMEDOUT)
                return false
            }
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(clamping: max(1, ms)))
            if ready == -1 && cmodbus_errno() == EINTR { continue }
            if ready == -1 { return false }
            if ready == 0 { continue }
            let n = read(fd, &buffer, buffer.count)
            if n > 0 {
                frame.append(contentsOf: buffer[0..<n])
                return true
            }
            if n == 0 {
                cmodbus_set_errno(ECONNRESET)
                return false
            }
            let err = cmodbus_errno()
            if err == EAGAIN || err == EINTR { continue }
            return false
        }
    }
}
