/// Misbehaviours a `ModbusSlave` can be told to show, to test clients against real device quirks.
public struct SlaveFaults: Sendable, Hashable {
    /// Reads (FC03/FC04) of more registers than this answer exception 03.
    public var maxReadRegisters: Int?
    /// Requests touching one of these addresses answer the given exception code.
    public var exceptions: [Int: UInt8]
    /// FC16 answers exception 01 (illegal function), as on devices that only know FC06.
    public var refuseFC16: Bool
    /// Every reply is delayed by this long.
    public var responseDelay: Duration
    /// Writes to these addresses store at most the given value.
    public var clamps: [Int: UInt16]
    /// A write touching the key address then sets these other registers (address → value), as drives
    /// that reset dependent parameters to their defaults.
    public var dependents: [Int: [Int: UInt16]] = [:]
    /// 32-bit values checked whole (key: the register's first address, words high first): a write of
    /// both its words whose value is above the limit answers exception 03 (illegal data value) and
    /// stores nothing; a write of only one of its words is stored unchecked — a device that cannot
    /// judge half a value, so a split write of a refused value would leave it torn.
    public var maxU32: [Int: UInt32] = [:]
    /// f32 values (key: the first address, words high first) stored rounded to one decimal (0.1) when a write
    /// covers both their words, as drives that keep a setting in tenths.
    public var roundF32: Set<Int> = []

    /// No faults unless given.
    public init(
        maxReadRegisters: Int? = nil, exceptions: [Int: UInt8] = [:], refuseFC16: Bool = false,
        responseDelay: Duration = .zero, clamps: [Int: UInt16] = [:], maxU32: [Int: UInt32] = [:],
        roundF32: Set<Int> = []
    ) {
        self.roundF32 = roundF32
        self.maxU32 = maxU32
        self.maxReadRegisters = maxReadRegisters
        self.exceptions = exceptions
        self.refuseFC16 = refuseFC16
        self.responseDelay = responseDelay
        self.clamps = clamps
    }
}

/// One write request a `ModbusSlave` received.
public struct SlaveWrite: Sendable, Hashable, CustomStringConvertible {
    /// 6 or 16.
    public var function: UInt8
    /// Unit id of the request.
    public var unit: Int
    /// First register address.
    public var address: Int
    /// The words as received.
    public var values: [UInt16]
    /// The exception answered instead of writing, nil when the write was accepted.
    public var exception: UInt8?

    /// Sets every field.
    public init(function: UInt8, unit: Int, address: Int, values: [UInt16], exception: UInt8? = nil) {
        self.function = function
        self.unit = unit
        self.address = address
        self.values = values
        self.exception = exception
    }

    /// Number of registers written.
    public var count: Int { values.count }

    /// `WRITE fc=16 unit=1 address=100 count=2 values=7,8` (plus ` exception=01` when refused).
    public var description: String {
        var text =
            "WRITE fc=\(function) unit=\(unit) address=\(address) count=\(values.count) values="
            + values.map(String.init).joined(separator: ",")
        if let exception { text += " exception=" + (exception < 16 ? "0" : "") + String(exception, radix: 16, uppercase: true) }
        return text
    }
}
