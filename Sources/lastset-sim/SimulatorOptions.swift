import LastsetCore
import ModbusLink
import LastsetSystem

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
    var logFrames = false
    var control = false
    var faultFreeUnit: Int?
    var maxRead: Int?
    var refuseFC16 = false
    var delayMs = 0
    var exceptions: [Int: UInt8] = [:]
    var clamps: [Int: UInt16] = [:]
    var maxU32: [Int: UInt32] = [:]
    var roundF32: Set<Int> = []

    static let usage = """
        usage: lastset-sim --config FILE [--device ID | --page ID ...] (--tcp 127.0.0.1:PORT | --rtu /dev/pts/N)
                           [--baud N] [--parity N|E|O] [--unit N] [--values FILE.json] [--log-writes] [--log-frames]
                           [--control] [--fault-free-unit N] [--max-read N] [--refuse-fc16] [--delay-ms N] [--exception ADDR:CODE ...]
                           [--clamp ADDR:MAX ...] [--max-u32 ADDR:MAX ...] [--round-f32 ADDR ...]

        Serves the registers of the config's pages (the device's pages with --device, else the --page ones,
        else all) at their "not set" defaults, then the values of --values ({"registerId": value, "1536": word}).
        Prints "READY tcp HOST:PORT" or "READY rtu PATH" once listening (port 0 picks a free port); runs until
        SIGTERM or SIGINT. --log-writes prints each write request as a "WRITE ..." line.

        Faults: --max-read N answers reads of more than N registers with exception 03; --refuse-fc16 answers
        FC16 with exception 01; --delay-ms N delays every reply; --exception ADDR:CODE answers requests touching
        ADDR with CODE; --clamp ADDR:MAX stores at most MAX at ADDR; --max-u32 ADDR:MAX checks the 32-bit value
        at ADDR, ADDR+1 (high word first) whole: an FC16 writing both words with a value above MAX answers
        exception 03 (illegal data value) and stores nothing, a write of only one of its words is stored
        unchecked (a device that cannot judge half a value); --round-f32 ADDR stores the f32 at ADDR, ADDR+1 (high
        word first) rounded to one decimal when a write covers both its words (a device keeping tenths).
        --log-frames prints every request, before it is answered, as
          FRAME n=SEQ t=UNIXTIME peer=ADDR:PORT fc=F unit=U address=A count=C values=W,W,... [exception=XX]
        (a write's words as received; a read's words as answered, none when refused).
        --fault-free-unit N serves requests to unit N (TCP answers every unit) without any fault: an inspector's
        reads of what a faulty machine holds.
        --control reads commands from stdin, one a line, each acknowledged with a "CONTROL n=SEQ t=UNIXTIME ..."
        line once in force (SEQ: the last frame seen):
          faults [FAULT FLAGS]   replaces every fault (--max-read, --refuse-fc16, --delay-ms, --exception, --clamp,
                                 --max-u32, --round-f32)
          set ADDR W[,W...]      sets holding (and input) registers, as the machine's own panel would: no frame
          hold N                 holds the N-th write request from now: its FRAME line, then "HOLD n=SEQ",
                                 then nothing is served until "release"
          release                serves the held request (and what waited behind it)
        """

    /// A usage error: the message names the bad argument.
    struct UsageError: Error, CustomStringConvertible {
        var description: String
    }

    /// The faults the flags describe.
    var faults: SlaveFaults {
        SlaveFaults(
            maxReadRegisters: maxRead, exceptions: exceptions, refuseFC16: refuseFC16, responseDelay: .milliseconds(delayMs),
            clamps: clamps, maxU32: maxU32, roundF32: roundF32)
    }

    /// Only fault flags (a `--control` "faults" command): the faults they describe, every other fault off.
    static func parseFaults(_ arguments: [String]) throws(UsageError) -> SlaveFaults {
        var options = SimulatorOptions()
        var i = 0
        while i < arguments.count {
            let flag = arguments[i]
            let known = try options.parseFault(flag) { () throws(UsageError) in
                i += 1
                guard i < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
                return arguments[i]
            }
            guard known else { throw UsageError(description: "unknown fault flag \"\(flag)\"") }
            i += 1
        }
        return options.faults
    }

    /// Takes one fault flag (its value from `value`); false when `flag` is no fault flag.
    mutating func parseFault(_ flag: String, value: () throws(UsageError) -> String) throws(UsageError) -> Bool {
        switch flag {
        case "--max-read": maxRead = try Self.integer(flag, try value(), 1...125)
        case "--refuse-fc16": refuseFC16 = true
        case "--delay-ms": delayMs = try Self.integer(flag, try value(), 0...60000)
        case "--exception":
            let (address, code) = try Self.pair(flag, try value(), 1...255)
            exceptions[address] = UInt8(code)
        case "--clamp":
            let (address, limit) = try Self.pair(flag, try value(), 0...65535)
            clamps[address] = UInt16(limit)
        case "--max-u32":
            let (address, limit) = try Self.pair(flag, try value(), 0...Int(UInt32.max))
            guard address < 65535 else {
                throw UsageError(description: "--max-u32: a 32-bit value at \(address) would end past 65535")
            }
            maxU32[address] = UInt32(limit)
        case "--round-f32": roundF32.insert(try Self.integer(flag, try value(), 0...65534))
        default: return false
        }
        return true
    }

    static func integer(_ flag: String, _ text: String, _ range: ClosedRange<Int>) throws(UsageError) -> Int {
        let parsed = text.hasPrefix("0x") ? Int(text.dropFirst(2), radix: 16) : Int(text)
        guard let n = parsed, range.contains(n) else {
            throw UsageError(description: "\(flag): \"\(text)\" is not an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    static func pair(_ flag: String, _ text: String, _ second: ClosedRange<Int>) throws(UsageError) -> (Int, Int) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw UsageError(description: "\(flag): \"\(text)\" is not ADDR:VALUE") }
        return (try integer(flag, String(parts[0]), 0...65535), try integer(flag, String(parts[1]), second))
    }

    static func parse(_ arguments: [String]) throws(UsageError) -> SimulatorOptions {
        var options = SimulatorOptions()
        var i = 0
        func value(_ flag: String) throws(UsageError) -> String {
            i += 1
            guard i < arguments.count else { throw UsageError(description: "\(flag) needs a value") }
            return arguments[i]
        }
        while i < arguments.count {
            let flag = arguments[i]
            switch flag {
            case "--config": options.configPath = try value(flag)
            case "--device": options.deviceId = try value(flag)
            case "--page": options.pageIds.append(try value(flag))
            case "--tcp":
                let text = try value(flag)
                guard let parts = try? HostPort(parsing: text), !parts.host.isEmpty else {
                    throw UsageError(description: "--tcp: \"\(text)\" is not HOST:PORT")
                }
                options.tcp = (parts.host, try Self.integer(flag, parts.port, 0...65535))
            case "--rtu": options.rtuPath = try value(flag)
            case "--baud": options.baud = try Self.integer(flag, try value(flag), 1200...921600)
            case "--parity":
                let text = try value(flag)
                guard ["N", "E", "O"].contains(text) else {
                    throw UsageError(description: "--parity: \"\(text)\" is not N, E or O")
                }
                options.parity = Character(text)
            case "--unit": options.unit = try Self.integer(flag, try value(flag), 1...247)
            case "--values": options.valuesPath = try value(flag)
            case "--log-writes": options.logWrites = true
            case "--log-frames": options.logFrames = true
            case "--control": options.control = true
            case "--fault-free-unit": options.faultFreeUnit = try Self.integer(flag, try value(flag), 1...247)
            default:
                guard try options.parseFault(flag, value: { () throws(UsageError) in try value(flag) }) else {
                    throw UsageError(description: "unknown argument \"\(flag)\"")
                }
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
