import Foundation
import LastsetClient

/// A `lastsetd` started by the bench, with its own NOTIFY_SOCKET, data directory and API socket.
final class DaemonProcess: @unchecked Sendable {
    /// Time from spawning the process to the READY=1 datagram.
    let timeToReady: Duration
    /// The API socket path.
    let socketPath: String
    private let process: ChildProcess
    private let notify: NotifySocket

    /// Starts the daemon and waits (at most 60 s) for READY=1.
    init(executable: String, config: String, directory: String, name: String, logDirectory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        socketPath = "\(directory)/api.sock"
        notify = try NotifySocket(path: "\(directory)/notify.sock")
        let started = ContinuousClock.now
        process = try ChildProcess(
            name: name, executable: executable,
            arguments: ["--config", config, "--data-dir", "\(directory)/data", "--socket", socketPath, "--log-level", "warning"],
            environment: ["NOTIFY_SOCKET": notify.path], logDirectory: logDirectory)
        guard let ready = notify.waitForReady(timeout: .seconds(60)) else {
            process.stop()
            throw BenchError("\(name): no READY=1 on \(notify.path) within 60 s (see \(process.logPath))")
        }
        timeToReady = ready - started
    }

    /// The daemon's pid.
    var pid: Int32 { process.pid }

    /// CPU and memory figures now.
    func stats() throws -> ProcStats { try ProcStats.read(pid: process.pid) }

    /// POSTs a JSON body and returns the decoded JSON object of a 200 answer, and the time of the HTTP
    /// exchange alone (request sent → whole answer received): decoding the answer is the client's cost, not
    /// the daemon's, so it is not timed.
    func post(_ path: String, body: String) throws -> (object: [String: Any], exchange: Duration) {
        let (response, exchange) = try self.exchange(path, body: body)
        return (try object(of: response, "POST \(path) \(body)"), exchange)
    }

    /// The HTTP exchange of a POST alone, its answer undecoded.
    func exchange(_ path: String, body: String) throws -> (response: HTTPClientResponse, exchange: Duration) {
        let client = HTTPClient(endpoint: .unix(path: socketPath), timeout: .seconds(300))
        let start = ContinuousClock.now
        do {
            let response = try client.send(method: "POST", path: path, body: Array(body.utf8))
            return (response, ContinuousClock.now - start)
        } catch {
            throw BenchError("POST \(path) \(body): \(error)")
        }
    }

    /// The JSON object of a 200 answer.
    func object(of response: HTTPClientResponse, _ what: String) throws -> [String: Any] {
        guard response.status == 200, let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        else {
            throw BenchError("\(what): HTTP \(response.status): \(String(decoding: response.body, as: UTF8.self).prefix(500))")
        }
        return object
    }

    /// The body of a replay (wait=1) to a device id or an ad-hoc endpoint on 127.0.0.1.
    static func applyBody(device: String?, port: Int?) -> String {
        device.map { "{\"device\":\"\($0)\"}" } ?? "{\"endpoint\":\"tcp://127.0.0.1:\(port ?? 0)\",\"unit\":1}"
    }

    /// The requests a replay's answer reports; throws unless the replay succeeded.
    func appliedRequests(_ response: HTTPClientResponse, page: String, to target: String) throws -> Int {
        let job = try object(of: response, "API replay of \(page) to \(target)")
        guard let report = job["replay"] as? [String: Any], report["status"] as? String == "succeeded" else {
            throw BenchError("API replay of \(page) to \(target) did not succeed: \(String(describing: job).prefix(800))")
        }
        return report["requests"] as? Int ?? -1
    }

    /// Captures a page through the API (wait=1); returns the requests the capture reported and the exchange's time.
    @discardableResult
    func capture(page: String, device: String) throws -> (requests: Int, exchange: Duration) {
        let (job, exchange) = try post("/v1/pages/\(page)/capture?wait=1", body: "{\"device\":\"\(device)\"}")
        guard let report = job["capture"] as? [String: Any], report["archived"] as? Bool == true else {
            throw BenchError("API capture of \(page) from \(device) did not archive: \(job)")
        }
        return (report["requests"] as? Int ?? -1, exchange)
    }

    /// Replays a page's latest template through the API (wait=1) to a device id or an ad-hoc endpoint;
    /// returns the requests the replay reported and the exchange's time.
    @discardableResult
    func apply(page: String, device: String? = nil, port: Int? = nil) throws -> (requests: Int, exchange: Duration) {
        let (response, exchange) = try self.exchange(
            "/v1/pages/\(page)/apply?wait=1", body: Self.applyBody(device: device, port: port))
        return (try appliedRequests(response, page: page, to: device ?? "port \(port ?? 0)"), exchange)
    }

    /// Stops the daemon (SIGTERM).
    func stop() { process.stop(grace: .seconds(15)) }
}
