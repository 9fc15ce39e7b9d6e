/// One request a `ModbusSlave` received — a read or a write, answered or refused — as a frame log shows it.
public struct SlaveFrame: Sendable, Hashable, CustomStringConvertible {
    /// The function code (3, 4, 6, 16, or whatever else arrived).
    public var function: UInt8
    /// Unit id of the request.
    public var unit: Int
    /// First register address.
    public var address: Int
    /// Registers asked for (reads) or written (writes).
    public var count: Int
    /// Writes: the words received. Reads: the words answered (empty when an exception was answered).
    public var values: [UInt16]
    /// The exception answered instead, nil when the request was served.
    public var exception: UInt8?
    /// TCP: the client's `address:port` (tells the clients of one slave apart); nil on RTU.
    public var peer: String?

    /// Sets every field.
    public init(
        function: UInt8, unit: Int, address: Int, count: Int, values: [UInt16], exception: UInt8? = nil, peer: String? = nil
    ) {
        self.function = function
        self.unit = unit
        self.address = address
        self.count = count
        self.values = values
        self.exception = exception
        self.peer = peer
    }

    /// Whether the request writes (FC06 or FC16).
    public var isWrite: Bool { function == 6 || function == 16 }

    /// `peer=127.0.0.1:40112 fc=3 unit=1 address=100 count=2 values=7,8` (plus ` exception=03` when refused);
    /// the fields a frame log line carries after its sequence number and time.
    public var description: String {
        var text =
            "peer=\(peer ?? "-") fc=\(function) unit=\(unit) address=\(address) count=\(count) values="
            + values.map(String.init).joined(separator: ",")
        if let exception { text += " exception=" + (exception < 16 ? "0" : "") + String(exception, radix: 16, uppercase: true) }
        return text
    }
}
