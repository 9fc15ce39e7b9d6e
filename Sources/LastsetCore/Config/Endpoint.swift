import LastsetSystem

/// Where a Modbus device is reached: a TCP host and port, or a serial line with its framing.
public enum Endpoint: Hashable, Sendable, CustomStringConvertible {
    case tcp(host: String, port: Int)
    case rtu(SerialLine)

    /// A serial line and its settings; every unit on one line shares one connection.
    public struct SerialLine: Hashable, Sendable {
        public var path: String
        public var baud: Int
        /// "N", "E" or "O".
        public var parity: Character
        public var dataBits: Int
        public var stopBits: Int

        public init(path: String, baud: Int = 19200, parity: Character = "N", dataBits: Int = 8, stopBits: Int = 1) {
            self.path = path
            self.baud = baud
            self.parity = parity
            self.dataBits = dataBits
            self.stopBits = stopBits
        }
    }

    /// The canonical URL form.
    public var description: String {
        switch self {
        case .tcp(let host, let port):
            return "tcp://\(HostPort(host: host, port: String(port)))"
        case .rtu(let line):
            return "rtu://\(line.path)?baud=\(line.baud)&parity=\(line.parity)&data=\(line.dataBits)&stop=\(line.stopBits)"
        }
    }

    /// Key of the connection that serves this endpoint: one per TCP peer, one per serial line.
    public var connectionKey: String {
        switch self {
        case .tcp: return description
        case .rtu(let line): return "rtu://\(line.path)"
        }
    }

    /// The baud rates a serial endpoint may name.
    public static let baudRates: Set<Int> = [
        1200, 2400, 4800, 9600, 14400, 19200, 38400, 57600, 115200, 230400, 460800, 921600,
    ]

    /// Parses `tcp://host:port` or `rtu:///dev/tty…?baud=…&parity=…&data=…&stop=…`.
    public static func parse(_ text: String) throws(EndpointError) -> Endpoint {
        func fail(_ why: String) -> EndpointError { EndpointError(text: text, reason: why) }
        if text.hasPrefix("tcp://") {
            let parts: HostPort
            do throws(HostPortError) {
                parts = try HostPort(parsing: text.dropFirst("tcp://".count))
            } catch {
                throw fail(error.description)
            }
            let (host, portText) = (parts.host, parts.port)
            guard !host.isEmpty else { throw fail("empty host") }
            guard host.allSatisfy({ $0.isLetter || $0.isNumber || ".-_:".contains($0) }) else {
                throw fail("invalid host \"\(host)\"")
            }
            guard let port = Int(portText), (1...65535).contains(port), String(port) == portText else {
                throw fail("port \"\(portText)\" is not in 1...65535")
            }
            return .tcp(host: host, port: port)
        }
        if text.hasPrefix("rtu://") {
            let rest = String(text.dropFirst("rtu://".count))
            let parts = rest.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
            let path = String(parts[0])
            guard path.hasPrefix("/"), path.count > 1 else { throw fail("serial device must be an absolute path") }
            var line = SerialLine(path: path)
            if parts.count == 2 {
                for pair in parts[1].split(separator: "&") {
                    let kv = pair.split(separator: "=", maxSplits: 1)
                    guard kv.count == 2 else { throw fail("bad parameter \"\(pair)\"") }
                    let key = String(kv[0])
                    let value = String(kv[1])
                    switch key {
                    case "baud":
                        guard let b = Int(value), baudRates.contains(b) else { throw fail("unsupported baud \"\(value)\"") }
                        line.baud = b
                    case "parity":
                        guard ["N", "E", "O"].contains(value) else { throw fail("parity \"\(value)\" is not N, E or O") }
                        line.parity = Character(value)
                    case "data":
                        guard let d = Int(value), (5...8).contains(d) else { throw fail("data bits \"\(value)\" not in 5...8") }
                        line.dataBits = d
                    case "stop":
                        guard let s = Int(value), (1...2).contains(s) else { throw fail("stop bits \"\(value)\" not 1 or 2") }
                        line.stopBits = s
                    default:
                        throw fail("unknown parameter \"\(key)\"")
                    }
                }
            }
            return .rtu(line)
        }
        throw fail("expected tcp://host:port or rtu:///dev/…")
    }
}

/// An endpoint that does not parse; quotes the text and says why.
public struct EndpointError: Error, Hashable, Sendable, CustomStringConvertible {
    public var text: String
    public var reason: String
    public var description: String { "bad endpoint \"\(text)\": \(reason)" }
}
