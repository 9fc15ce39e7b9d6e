import Foundation

/// The pymodbus test peer (`Tests/peers/pymodbus_server.py`), run with the pinned venv's python.
public final class PymodbusPeer: @unchecked Sendable {
    /// The server process.
    public let process: PeerProcess
    /// The TCP port it listens on (nil for RTU).
    public let port: Int?
    /// The JSON-lines file receiving every write request, in order.
    public let writeLog: URL
    /// The JSON-lines file receiving every request on arrival (before any delay), in order.
    public let arrivalLog: URL

    private init(process: PeerProcess, port: Int?, writeLog: URL, arrivalLog: URL) {
        self.process = process
        self.port = port
        self.writeLog = writeLog
        self.arrivalLog = arrivalLog
    }

    private static let venvLock = NSLock()
    nonisolated(unsafe) private static var venvReady = false

    /// `<root>/.venv/bin/python`, running `Tests/peers/setup-venv.sh` first (quick when already set up).
    public static func python() throws(TestSupportError) -> URL {
        venvLock.lock()
        defer { venvLock.unlock() }
        let python = TestPaths.repoRoot.appendingPathComponent(".venv/bin/python")
        if !venvReady {
            let setup = try ProgramRun.run(
                URL(fileURLWithPath: "/bin/bash"), [TestPaths.peersDirectory.appendingPathComponent("setup-venv.sh").path],
                timeout: 600)
            guard setup.status == 0 else {
                throw TestSupportError("setup-venv.sh failed with status \(setup.status): \(setup.stderr)")
            }
            venvReady = true
        }
        return python
    }

    /// Starts the peer on TCP 127.0.0.1 (port chosen by the OS) with extra `options`
    /// (e.g. `["--max-read", "40"]`) and initial `values` (address → words).
    public static func startTCP(options: [String] = [], values: [Int: [UInt16]] = [:]) throws(TestSupportError) -> PymodbusPeer {
        try start(where: ["--tcp", "127.0.0.1:0"], options: options, values: values)
    }

    /// Starts the peer on TCP 127.0.0.1:`port` (a machine put in another's place: the port the first one had).
    public static func startTCP(port: Int, options: [String] = [], values: [Int: [UInt16]] = [:]) throws(TestSupportError)
        -> PymodbusPeer
    {
        try start(where: ["--tcp", "127.0.0.1:\(port)"], options: options, values: values)
    }

    /// Starts the peer on a serial device (e.g. one end of a `SocatPair`).
    public static func startRTU(path: String, options: [String] = [], values: [Int: [UInt16]] = [:]) throws(TestSupportError)
        -> PymodbusPeer
    {
        try start(where: ["--rtu", path], options: options, values: values)
    }

    private static func start(where listen: [String], options: [String], values: [Int: [UInt16]]) throws(TestSupportError)
        -> PymodbusPeer
    {
        let python = try python()
        let dir = try TestPaths.temporaryDirectory(prefix: "pymodbus")
        let writeLog = dir.appendingPathComponent("writes.jsonl")
        let arrivalLog = dir.appendingPathComponent("arrivals.jsonl")
        var arguments = [TestPaths.peersDirectory.appendingPathComponent("pymodbus_server.py").path]
        arguments += listen + ["--write-log", writeLog.path, "--arrival-log", arrivalLog.path]
        if !values.isEmpty {
            let valuesFile = dir.appendingPathComponent("values.json")
            let object = Dictionary(uniqueKeysWithValues: values.map { (String($0.key), $0.value.map(Int.init)) })
            do {
                try JSONSerialization.data(withJSONObject: object).write(to: valuesFile)
            } catch {
                throw TestSupportError("cannot write \(valuesFile.path): \(error)")
            }
            arguments += ["--values", valuesFile.path]
        }
        arguments += options
        let process = try PeerProcess.start(python, arguments, environment: ["PYTHONUNBUFFERED": "1"])
        let words = process.readyLine.split(separator: " ")
        let port = listen[0] == "--tcp" ? words.last.flatMap { Int($0) } : nil
        if listen[0] == "--tcp" && port == nil {
            process.terminate()
            throw TestSupportError("pymodbus peer printed \"\(process.readyLine)\", expected READY <port>")
        }
        return PymodbusPeer(process: process, port: port, writeLog: writeLog, arrivalLog: arrivalLog)
    }

    /// One write request the peer received.
    public struct Write: Hashable, Sendable, Decodable {
        /// 6 or 16.
        public var function: Int
        /// Unit id of the request.
        public var unit: Int
        /// First register address.
        public var address: Int
        /// Number of registers.
        public var count: Int
        /// The words as received.
        public var values: [Int]
        /// The exception answered instead of writing (nil when the write was accepted).
        public var exception: Int?
    }

    /// The write requests received so far, in order.
    public func writes() throws(TestSupportError) -> [Write] {
        guard let text = try? String(contentsOf: writeLog, encoding: .utf8) else { return [] }
        var result: [Write] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            do {
                result.append(try JSONDecoder().decode(Write.self, from: Data(line.utf8)))
            } catch {
                throw TestSupportError("bad write-log line \"\(line)\": \(error)")
            }
        }
        return result
    }

    /// One request as it arrived (before any delay or fault).
    public struct Arrival: Hashable, Sendable, Decodable {
        /// 3, 4, 6 or 16.
        public var function: Int
        /// First register address.
        public var address: Int
        /// Number of registers.
        public var count: Int
    }

    /// The requests that reached the peer so far, in order of arrival (answered or not yet).
    public func arrivals() throws(TestSupportError) -> [Arrival] {
        guard let text = try? String(contentsOf: arrivalLog, encoding: .utf8) else { return [] }
        var result: [Arrival] = []
        for line in text.split(separator: "\n") where !line.isEmpty {
            do {
                result.append(try JSONDecoder().decode(Arrival.self, from: Data(line.utf8)))
            } catch {
                throw TestSupportError("bad arrival-log line \"\(line)\": \(error)")
            }
        }
        return result
    }

    /// Stops the peer.
    public func stop() { process.terminate() }
}
