/// How long an FC43/14 answer is on the wire, from its first bytes: libmodbus 3.1.6 cannot receive one
/// (`modbus_receive_confirmation` knows no length for function 0x2B and stops after one byte of it), so the
/// link reads the answer itself and asks this, byte by byte, how many it still needs. Pure; no input traps.
public enum IdentificationFrame {
    /// What the bytes so far say about the whole frame.
    public enum Need: Sendable, Hashable {
        /// At least this many bytes in all (read on, then ask again).
        case atLeast(Int)
        /// The frame is exactly this many bytes.
        case complete(Int)
        /// No FC43 answer starts like this (the reason quotes the byte).
        case invalid(String)
    }

    /// The largest RTU frame (address + 253-byte PDU + CRC).
    public static let maxRTU = 256
    /// The MBAP header of Modbus TCP (transaction, protocol, length, unit).
    public static let mbapLength = 7

    /// An RTU answer: `unit 2B 0E code conformity more next count {id len value}… crcLo crcHi`, or an exception
    /// `unit AB code crcLo crcHi`.
    public static func rtu(_ bytes: [UInt8]) -> Need {
        guard bytes.count >= 2 else { return .atLeast(2) }
        switch bytes[1] {
        case 0xAB: return .complete(5)
        case 0x2B: break
        default: return .invalid("function \(DeviceIdentificationAnswer.hex(bytes[1])) answers no FC43 request")
        }
        // Address, function, MEI type, code, conformity, more follows, next object, object count.
        guard bytes.count >= 8 else { return .atLeast(8) }
        var end = 8
        for _ in 0..<Int(bytes[7]) {
            guard bytes.count >= end + 2 else { return .atLeast(end + 2) }
            end += 2 + Int(bytes[end + 1])
            if end + 2 > maxRTU { return .invalid("the objects run past the \(maxRTU) bytes of an RTU frame") }
        }
        return .complete(end + 2)
    }

    /// A TCP answer: the MBAP header's length field says the rest (unit + PDU, 2…254 bytes; protocol id 0).
    public static func tcp(_ bytes: [UInt8]) -> Need {
        guard bytes.count >= mbapLength else { return .atLeast(mbapLength) }
        guard bytes[2] == 0, bytes[3] == 0 else {
            return .invalid("protocol id \(UInt16(bytes[2]) << 8 | UInt16(bytes[3])) is not Modbus (0)")
        }
        let length = Int(bytes[4]) << 8 | Int(bytes[5])
        guard (2...(DeviceIdentificationAnswer.maxPDU + 1)).contains(length) else {
            return .invalid("MBAP length \(length) is outside 2…\(DeviceIdentificationAnswer.maxPDU + 1)")
        }
        return .complete(6 + length)
    }

    /// The Modbus RTU CRC-16 (polynomial 0xA001, initial 0xFFFF) of `bytes`; on the wire low byte first.
    public static func crc16(_ bytes: ArraySlice<UInt8>) -> UInt16 {
        var crc: UInt16 = 0xFFFF
        for b in bytes {
            crc ^= UInt16(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xA001 : crc >> 1 }
        }
        return crc
    }

    /// Whether an RTU frame's last two bytes are the CRC of the rest.
    public static func crcMatches(_ frame: [UInt8]) -> Bool {
        guard frame.count >= 4 else { return false }
        let crc = crc16(frame[..<(frame.count - 2)])
        return frame[frame.count - 2] == UInt8(crc & 0xFF) && frame[frame.count - 1] == UInt8(crc >> 8)
    }
}
