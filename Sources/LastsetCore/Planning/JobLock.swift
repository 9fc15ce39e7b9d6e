/// What a job (or a poll) holds while it talks to a machine: a whole machine, or one unit behind it.
///
/// A plain Modbus TCP device answers every unit id, so two jobs on one TCP peer with different units
/// would interleave their writes on the same machine: they lock the whole machine. Units are separate
/// devices only behind a gateway (declared per device: `gateway: true`) and on a serial line (the line
/// serialises the frames; each unit is its own device).
public struct JobLock: Hashable, Sendable, CustomStringConvertible {
    /// The machine the connection reaches.
    public let machine: MachineKey
    /// The unit held; nil: the whole machine.
    public let unit: Int?

    /// The lock of a job on `unit` of `machine`: per unit on a serial line or behind a gateway, else the
    /// whole machine.
    public init(machine: MachineKey, unit: Int, gateway: Bool) {
        self.machine = machine
        self.unit = machine.isSerialLine || gateway ? unit : nil
    }

    /// The lock of the whole machine: every unit of a serial line or TCP peer (a scan probes them all).
    public init(wholeMachine machine: MachineKey) {
        self.machine = machine
        self.unit = nil
    }

    /// Whether two locks cannot be held at once: the same machine, and either is the whole machine or
    /// both name the same unit.
    public func conflicts(with other: JobLock) -> Bool {
        machine == other.machine && (unit == nil || other.unit == nil || unit == other.unit)
    }

    /// `tcp4 127.0.0.1:1502` (whole machine) or `rtu /dev/ttyUSB0 unit 3`.
    public var description: String { unit.map { "\(machine) unit \($0)" } ?? machine.text }
}
