/// The framing of a serial line: baud rate, parity, data and stop bits. Every unit on one RS-485 line talks
/// with the same framing, so it belongs to the line, not to a device (see `LineAccess`).
public struct LineSettings: Hashable, Sendable, CustomStringConvertible {
    /// Bits per second.
    public var baud: Int
    /// "N", "E" or "O".
    public var parity: Character
    /// 5…8.
    public var dataBits: Int
    /// 1 or 2.
    public var stopBits: Int

    /// Sets every field (the defaults are `Endpoint.SerialLine`'s: 19200 8N1).
    public init(baud: Int = 19200, parity: Character = "N", dataBits: Int = 8, stopBits: Int = 1) {
        self.baud = baud
        self.parity = parity
        self.dataBits = dataBits
        self.stopBits = stopBits
    }

    /// `baud=19200 parity=N data=8 stop=1`: the parameter names of an `rtu://` endpoint, so a refusal
    /// shows what to write.
    public var description: String { "baud=\(baud) parity=\(parity) data=\(dataBits) stop=\(stopBits)" }
}

extension Endpoint.SerialLine {
    /// The line's framing as this endpoint gives it.
    public var settings: LineSettings { LineSettings(baud: baud, parity: parity, dataBits: dataBits, stopBits: stopBits) }
}

extension Endpoint {
    /// The serial framing of an `rtu://` endpoint; nil for TCP.
    public var lineSettings: LineSettings? {
        guard case .rtu(let line) = self else { return nil }
        return line.settings
    }
}
