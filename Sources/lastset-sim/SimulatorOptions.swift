import LastsetCore

/// The command line of `lastset-sim`, parsed and checked.
struct SimulatorOptions {
    var configPath = ""
    var deviceId: String?
    var pageIds: [String] = []
    var tcp: (host: String, port: Int)?
    var rtuPath: String?
    var baud = 19200
    var parity: Character = "N"
    var unit: Int?
    var valuesPath: String?
    var logWrites = false
    var maxRead: Int?
    var refuseFC16 = false
    var delayMs = 0
    var exceptions: [Int: UInt8] = [:]
    var clamps: [Int: UInt16] = [:]

    static let usage = """
        usage: lastset-sim --config FILE [--device ID | --page ID ...] (--tcp 127.0.0.1:PORT | --rtu /dev/pts/N)
                           [--baud N] [--parity N|E|O] [--unit N] [--values FILE.json] [--log-writes]
                           [--max-read N] [--refuse-fc16] [--delay-ms N] [--exception ADDR:CODE ...] [--clamp ADDR:MAX ...]

        Serves the registers of the config's pages (the device's pages with --device, else the --page ones,
        else all) at their "not set" defaults, then the values of --values ({"registerId": value, "1536": word}).
        Prints "READY tcp HOST:PORT" or "READY rtu PATH" once listening (port 0 picks a free port); runs until
        SIGTERM or SIGINT. --log-writes prints each write request as a "WRITE ..." line.
        """

    /// A usage error: the message names the bad argument.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> SimulatorOptions {
        var options = SimulatorOptions()
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
            return arguments[i]
        }
        func integer(_ flag: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
            let parsed = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
            guard let n = parsed, range.contains(n) else {
                throw UsageError(
                    description: "\(flag): \"\(text)\" is not an integer in \(range.lowerBound)...\(range.upperBound)")
            }
            return n
        }
        func pair(_ flag: String, _ text: String, _ second: ClosedRange<Int>) throws(UsageError) -> (Int, Int) {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw UsageError(description: "\(flag): \"\(text)\" is not ADDR:VALUE") }
            return (try integer(flag, String(parts[0]), 0...65535), try integer(flag, String(parts[1]), second))
        }
        while i < arguments.count {
            let flag = arguments[i]
            switch flag {
            case "--config": options.configPath = try value(flag)
            case "--device": options.deviceId = try value(flag)
            case "--page": options.pageIds.append(try value(flag))
            case "--tcp":
                let text = try value(flag)
                guard let colon = text.lastIndex(of: ":"), colon != text.startIndex else {
                    throw UsageError(description: "--tcp: \"\(text)\" is not HOST:PORT")
                }
                let port = try integer(flag, String(text[text.index(after: colon)...]), 0...65535)
                options.tcp = (String(text[..<colon]), port)
            case "--rtu": options.rtuPath = try value(flag)
            case "--baud": options.baud = try integer(flag, try value(flag), 1200...921600)
            case "--parity":
                let text = try value(flag)
                guard ["N", "E", "O"].contains(text) else {
                    throw UsageError(description: "--parity: \"\(text)\" is not N, E or O")
                }
                options.parity = Character(text)
            case "--unit": options.unit = try integer(flag, try value(flag), 1...247)
            case "--values": options.valuesPath = try value(flag)
            case "--log-writes": options.logWrites = true
            case "--max-read": options.maxRead = try integer(flag, try value(flag), 1...125)
            case "--refuse-fc16": options.refuseFC16 = true
            case "--delay-ms": options.delayMs = try integer(flag, try value(flag), 0...60000)
            case "--exception":
                let (address, code) = try pair(flag, try value(flag), 1...255)
                options.exceptions[address] = UInt8(code)
            case "--clamp":
                let (address, limit) = try pair(flag, try value(flag), 0...65535)
                options.clamps[address] = UInt16(limit)
            default:
                throw UsageError(description: "unknown argument \"\(flag)\"")
            }
            i += 1
        }
        guard !options.configPath.isEmpty else { throw UsageError(description: "--config FILE is required") }
        guard (options.tcp == nil) != (options.rtuPath == nil) else {
            throw UsageError(description: "give exactly one of --tcp HOST:PORT and --rtu PATH")
        }
        if options.deviceId != nil && !options.pageIds.isEmpty {
            throw UsageError(description: "give --device or --page, not both")
        }
        return options
    }
}
