import Foundation
import LastsetCore
import LastsetHTTP
import Synchronization
import TestSupport
import XCTest

/// A stand-in for `lastsetd`: an `HTTPServer` on a Unix socket in a temp dir answering canned responses per route.
///
/// A route is `"METHOD /path"` plus `?key=value&…` (keys sorted) when the request has a query. Each route holds a
/// queue of responses: they are served in order and the last one repeats (a job that runs, then finishes).
final class FakeDaemon: Sendable {
    /// A request as the fake daemon received it.
    struct Received: Equatable, Sendable {
        /// The route key, e.g. `GET /v1/jobs/j1`.
        var route: String
        /// The body as text.
        var body: String
    }

    private struct State {
        var routes: [String: [HTTPResponse]]
        var received: [Received] = []
    }

    /// Shared by the server's handler and the test (a `Mutex` cannot be captured by an escaping closure itself).
    private final class Store: Sendable {
        let state: Mutex<State>
        init(_ routes: [String: [HTTPResponse]]) { state = Mutex(State(routes: routes)) }
    }

    /// The temp directory holding the socket.
    let directory: String
    /// The socket path to give `--socket`.
    let socketPath: String
    private let server: HTTPServer
    private let store: Store

    /// Starts serving `routes` at once.
    init(routes: [String: [HTTPResponse]]) throws {
        directory = try TestPaths.shortTemporaryDirectory(prefix: "lastset-cli")
        socketPath = directory + "/api.sock"
        let store = Store(routes)
        self.store = store
        server = try HTTPServer(configuration: HTTPServerConfiguration(unixSocketPath: socketPath)) { request in
            var route = "\(request.method) \(request.path)"
            if !request.query.isEmpty {
                route += "?" + request.query.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: "&")
            }
            let body = String(decoding: request.body, as: UTF8.self)
            return store.state.withLock { state in
                state.received.append(Received(route: route, body: body))
                guard var queue = state.routes[route], let first = queue.first else {
                    return .error(404, code: "no_route", message: "the fake daemon has no route \"\(route)\"")
                }
                if queue.count > 1 {
                    queue.removeFirst()
                    state.routes[route] = queue
                }
                return first
            }
        }
        try server.start()
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Every request received so far, in order.
    var received: [Received] { store.state.withLock { $0.received } }

    /// Runs the built CLI against this daemon (`--socket` is passed first).
    func cli(_ arguments: [String]) throws -> CLIResult {
        try runCLI(["--socket", socketPath] + arguments)
    }

    /// A 200 (or `status`) JSON response of `value`, encoded as the daemon encodes it.
    static func json(_ value: some Encodable, status: Int = 200) -> HTTPResponse {
        .json(status, value, encoder: APICoding.encoder())
    }
}
