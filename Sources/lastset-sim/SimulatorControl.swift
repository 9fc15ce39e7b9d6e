import Foundation
import ModbusLink

/// `--control`: commands read from stdin on a thread of their own, one a line (see `SimulatorOptions.usage`).
/// A command is acknowledged on stdout once it is in force; a bad one is answered with an `ERROR` line and
/// changes nothing. End of input stops reading (the simulator keeps serving).
enum SimulatorControl {
    /// Starts the reader thread.
    static func start(slave: ModbusSlave, log: FrameLog) {
        let thread = Thread {
            while let line = readLine(strippingNewline: true) {
                let words = line.split(separator: " ").map(String.init)
                guard let command = words.first else { continue }
                do {
                    try run(command, Array(words.dropFirst()), slave: slave, log: log)
                    Simulator.emit("CONTROL n=\(log.last) t=\(FrameLog.now()) \(line)")
                } catch {
                    Simulator.emit("ERROR n=\(log.last) t=\(FrameLog.now()) \(line): \(error)")
                }
            }
        }
        thread.name = "lastset-sim control"
        thread.start()
    }

    private static func run(_ command: String, _ arguments: [String], slave: ModbusSlave, log: FrameLog)
        throws(SimulatorOptions.UsageError)
    {
        switch command {
        case "faults":
            slave.faults = try SimulatorOptions.parseFaults(arguments)
        case "set":
            guard arguments.count == 2 else { throw SimulatorOptions.UsageError(description: "usage: set ADDR W[,W...]") }
            let address = try SimulatorOptions.integer("set", arguments[0], 0...65535)
            var words: [UInt16] = []
            for text in arguments[1].split(separator: ",") {
                words.append(UInt16(try SimulatorOptions.integer("set", String(text), 0...65535)))
            }
            guard address + words.count <= 65536 else {
                throw SimulatorOptions.UsageError(description: "set: \(words.count) words from \(address) pass 65535")
            }
            slave.setHoldingRegisters(address: address, values: words)
            slave.setInputRegisters(address: address, values: words)
        case "hold":
            guard arguments.count == 1 else { throw SimulatorOptions.UsageError(description: "usage: hold N") }
            log.hold(afterWrites: try SimulatorOptions.integer("hold", arguments[0], 1...1_000_000))
        case "release":
            log.release()
        default:
            throw SimulatorOptions.UsageError(description: "unknown command \"\(command)\"")
        }
    }
}
