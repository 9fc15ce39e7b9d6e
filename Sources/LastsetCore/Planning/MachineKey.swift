/// What an endpoint resolves to: the machine (and line) a connection really reaches.
///
/// Two endpoint texts that reach the same peer (`tcp://localhost:P`, `tcp://127.1:P`,
/// `tcp://[::ffff:127.0.0.1]:P`, or two paths to one serial device) have the same key, so they share
/// one connection and one job lock. Resolving is I/O (getaddrinfo, realpath): `ModbusLink` does it;
/// this type only holds the result.
public struct MachineKey: Hashable, Sendable, CustomStringConvertible {
    /// The resolved form, e.g. `tcp4 127.0.0.1:1502`, `tcp6 ::1:1502` or `rtu /dev/ttyUSB0`.
    public let text: String

    /// A key from its resolved form.
    public init(text: String) { self.text = text }

    /// A TCP peer: address family (4 or 6), numeric address (IPv4-mapped IPv6 given as IPv4) and port.
    public static func tcp(family: Int, address: String, port: Int) -> MachineKey {
        MachineKey(text: family == 6 ? "tcp6 [\(address)]:\(port)" : "tcp4 \(address):\(port)")
    }

    /// A serial line by the device's real path.
    public static func rtu(realPath: String) -> MachineKey { MachineKey(text: "rtu \(realPath)") }

    /// The key of an endpoint that could not be resolved: its canonical text (better than nothing;
    /// a connection to it fails anyway).
    public static func unresolved(_ endpoint: Endpoint) -> MachineKey { MachineKey(text: "unresolved \(endpoint.connectionKey)") }

    /// The resolved form.
    public var description: String { text }

    /// Whether this is a serial line (several devices, one per unit, share it), not a TCP peer.
    public var isSerialLine: Bool { text.hasPrefix("rtu ") }
}
