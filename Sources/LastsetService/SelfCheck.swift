import Dispatch
import LastsetClient

/// The watchdog's proof of life: `GET /v1/health` through the daemon's own Unix socket, as a client would.
///
/// A daemon whose listener is wedged (every connection slot held, handlers stuck) still runs and could keep
/// pinging systemd forever; this check fails then, the pings stop and systemd restarts it.
struct SelfCheck: Sendable {
    /// The daemon's Unix socket.
    let socketPath: String
    /// The limit for the whole exchange (the watchdog interval: a slower answer counts as none).
    let timeout: Duration
    private static let queue = DispatchQueue(label: "lastset.selfcheck")

    /// Whether the API answered 200 within the timeout. The blocking client runs on its own queue, never on the
    /// cooperative pool.
    func run() async -> Bool {
        let client = HTTPClient(endpoint: .unix(path: socketPath), timeout: timeout)
        return await withCheckedContinuation { continuation in
            Self.queue.async {
                let status = try? client.send(method: "GET", path: "/v1/health", headers: ["User-Agent": "lastsetd-watchdog"])
                continuation.resume(returning: status?.status == 200)
            }
        }
    }
}
