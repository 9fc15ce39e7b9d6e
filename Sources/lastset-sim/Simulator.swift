import Foundation
import LastsetCore
import ModbusLink

/// The simulator's run: load the config, fill the register map, serve, stop on SIGTERM/SIGINT.
/// Everything here is nonisolated: the signal handlers and the write observer run on other threads.
enum Simulator {
    /// SIGTERM and SIGINT, taken by `sigwait` on the main thread.
    static var stopSignals: sigset_t {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGTERM)
        sigaddset(&set, SIGINT)
        return set
    }

    static func main(_ arguments: [String]) -> Never {
        // Block the stop signals before any thread exists: every thread inherits the mask, so the
        // signals can only be taken by the sigwait below, never lost or delivered to the slave thread.
        var blocked = stopSignals
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
        if arguments.contains("--help") || arguments.contains("-h") {
            print(SimulatorOptions.usage)
            exit(0)
        }
        let options: SimulatorOptions
        do {
            options = try SimulatorOptions.parse(arguments)
        } catch {
            fail("lastset-sim: \(error)\n\(SimulatorOptions.usage)", status: 64)
        }
        let config: LastsetConfig
        do {
            config = try ConfigLoader.load(path: options.configPath).source
        } catch {
            fail("lastset-sim: invalid config:\n\(error)", status: 1)
        }
        let device = options.deviceId.flatMap { config.device($0) }
        if let id = options.deviceId, device == nil {
            fail("lastset-sim: no device \"\(id)\" in \(options.configPath)", status: 1)
        }
        let pageIds = options.pageIds.isEmpty ? (device?.pages ?? config.pages.map(\.id)) : options.pageIds
        var pages: [PageDefinition] = []
        for id in pageIds {
            guard let page = config.page(id) else { fail("lastset-sim: no page \"\(id)\" in \(options.configPath)", status: 1) }
            pages.append(page)
        }
        let unit = options.unit ?? device?.unit ?? 1

        let listen: ModbusSlave.Listen
        if let tcp = options.tcp {
            listen = .tcp(host: tcp.host, port: tcp.port)
        } else {
            listen = .rtu(Endpoint.SerialLine(path: options.rtuPath!, baud: options.baud, parity: options.parity), unit: unit)
        }
        var observer: (@Sendable (SlaveWrite) -> Void)? = nil
        if options.logWrites {
            observer = { @Sendable (write: SlaveWrite) in Simulator.emit(write.description) }
        }
        let frameLog = FrameLog(printFrames: options.logFrames)
        var frameObserver: (@Sendable (SlaveFrame) -> Void)? = nil
        if options.logFrames || options.control {
            frameObserver = { @Sendable (frame: SlaveFrame) in frameLog.record(frame) }
        }
        let slave: ModbusSlave
        do {
            slave = try ModbusSlave(listen: listen, faults: options.faults, onWrite: observer, onFrame: frameObserver)
            slave.faultFreeUnit = options.faultFreeUnit
            try fill(slave, pages: pages, valuesPath: options.valuesPath)
            try slave.start()
        } catch let error as SimulatorError {
            fail("lastset-sim: \(error)", status: 1)
        } catch {
            fail("lastset-sim: \(error)", status: 1)
        }

        if options.control { SimulatorControl.start(slave: slave, log: frameLog) }
        emit("READY \(slave.listenDescription)")
        // SIGTERM/SIGINT have been blocked since the start (see `blockStopSignals`), so one sent right
        // after READY stays pending until this wait takes it.
        var signalNumber: Int32 = 0
        var waitSet = stopSignals
        sigwait(&waitSet, &signalNumber)
        frameLog.release()  // a held request would keep the slave's thread, and so `stop`, waiting
        slave.stop()
        exit(0)
    }

    /// Puts every page register at its unset default, then the initial values.
    static func fill(_ slave: ModbusSlave, pages: [PageDefinition], valuesPath: String?) throws(SimulatorError) {
        var byId: [String: RegisterDefinition] = [:]
        for page in pages {
            for definition in (page.identity ?? []).map(\.definition) + page.registers {
                byId[definition.registerId] = definition
                set(slave, address: definition.address, words: RegisterCodec.unsetWords(for: definition))
            }
        }
        guard let valuesPath else { return }
        let values: [String: RegisterValue]
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: valuesPath))
            values = try JSONDecoder().decode([String: RegisterValue].self, from: data)
        } catch {
            throw SimulatorError(description: "\(valuesPath): not a JSON object of register values: \(error)")
        }
        for (key, value) in values.sorted(by: { $0.key < $1.key }) {
            if let definition = byId[key] {
                do {
                    set(slave, address: definition.address, words: try RegisterCodec.encode(value, as: definition))
                } catch {
                    throw SimulatorError(description: "\(valuesPath): \(error)")
                }
            } else if let address = Int(key), (0...65535).contains(address), case .unsigned(let word) = value, word <= 0xFFFF {
                set(slave, address: address, words: [UInt16(word)])
            } else {
                throw SimulatorError(
                    description:
                        "\(valuesPath): \"\(key)\" is neither a registerId of the served pages nor an address with a u16 word (value \(value))"
                )
            }
        }
    }

    private static func set(_ slave: ModbusSlave, address: Int, words: [UInt16]) {
        slave.setHoldingRegisters(address: address, values: words)
        slave.setInputRegisters(address: address, values: words)
    }

    /// Writes one whole line to stdout and flushes it (tests read it through a pipe).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String, status: Int32) -> Never {
        FileHandle.standardError.write(Data((message + "\n").utf8))
        exit(status)
    }
}

/// A problem with the simulator's inputs (values file), quoting the bad value.
struct SimulatorError: Error, CustomStringConvertible {
    var description: String
}
