import Dispatch
import Glibc
import LastsetCore
import Synchronization

/// Follows every connection of one listener, from libmicrohttpd's connection notifications (issue 19, defect 15):
/// on the Unix socket it counts connections per peer uid and refuses one beyond `SocketConnectionLimits` at once;
/// on both listeners it closes a connection whose request has not all arrived within the request timeout.
///
/// libmicrohttpd's own timeout only bounds silence, so a client sending one header line (or one body byte) now and
/// then held its slot for as long as it liked. Each connection here is a numbered entry (its number is MHD's
/// socket context); the entry keeps a duplicate of the connection's socket, so a sweep can `shutdown` it — which
/// ends libmicrohttpd's reads on the same socket — without ever touching a descriptor number libmicrohttpd may
/// have closed and the kernel handed out again.
final class ConnectionGuard: Sendable {
    private struct Entry {
        /// Our duplicate of the connection's socket (-1: none could be made; the connection is then not cut).
        var socket: Int32
        var peer: HTTPPeer
        /// The peer's uid on the Unix socket (counted in `State.perUser`).
        var uid: UInt32?
        /// Refused when accepted: closed at once, and its request (if it got one in) is never handled.
        var refused: Bool
        /// Since when the connection waits for a complete request; nil while its handler runs or its answer goes out.
        var waitingSince: ContinuousClock.Instant?
        /// The current request's line has arrived.
        var requestStarted = false
        /// Requests answered on it.
        var served = 0
        var cut = false
    }

    private struct State {
        var next = 1
        var entries: [Int: Entry] = [:]
        var perUser: [UInt32: Int] = [:]
        /// Users refused since they last held fewer than their share (their refusals are reported once).
        var limited: Set<UInt32> = []
    }

    /// The Unix socket's limits; nil on TCP (libmicrohttpd's per-address limit applies there).
    let limits: SocketConnectionLimits?
    let requestTimeout: Duration
    private let notice: (@Sendable (HTTPServerNotice) -> Void)?
    private let state = Mutex(State())
    /// The sweep's timer (Dispatch sources are safe to use from any thread).
    private nonisolated(unsafe) let timer: any DispatchSourceTimer

    init(limits: SocketConnectionLimits?, requestTimeout: Duration, notice: (@Sendable (HTTPServerNotice) -> Void)?) {
        self.limits = limits
        self.requestTimeout = requestTimeout
        self.notice = notice
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "lastset.http.requests"))
        // Cut within a quarter of the timeout of it expiring (at most a second late).
        let period = max(Duration.milliseconds(100), min(.seconds(1), requestTimeout / 4))
        let (s, atto) = period.components
        timer.schedule(
            deadline: .now() + period.timeInterval, repeating: .nanoseconds(Int(s) * 1_000_000_000 + Int(atto / 1_000_000_000)))
        timer.setEventHandler { [weak self] in self?.sweep() }
        timer.resume()
    }

    deinit { timer.cancel() }

    /// Stops the sweeps and closes what is left (after libmicrohttpd has stopped: no callback comes any more).
    func stop() {
        timer.cancel()
        let left = state.withLock { s in
            defer { s.entries = [:] }
            return s.entries.values.map(\.socket)
        }
        for fd in left where fd >= 0 { close(fd) }
    }

    // MARK: libmicrohttpd's notifications (on its threads)

    /// A connection was accepted on socket `fd`: its entry's number (the socket context), or a refusal answered on
    /// the socket and the socket shut down.
    func opened(fd: Int32, isUnix: Bool) -> UnsafeMutableRawPointer? {
        let peer = HTTPPeer.of(socket: fd, isUnix: isUnix)
        var uid: UInt32?
        if case .unix(let u, _, _) = peer { uid = u }
        let (id, refusal, report): (Int, SocketConnectionLimits.Refusal?, Bool) = state.withLock { s in
            let id = s.next
            s.next += 1
            if let uid, let limits, let refusal = limits.refusal(uid: uid, held: s.perUser) {
                s.entries[id] = Entry(socket: -1, peer: peer, uid: nil, refused: true)
                return (id, refusal, s.limited.insert(uid).inserted)
            }
            if let uid {
                s.perUser[uid, default: 0] += 1
                s.limited.remove(uid)  // admitted again: a later refusal is news
            }
            s.entries[id] = Entry(
                socket: fcntl(fd, F_DUPFD_CLOEXEC, 0), peer: peer, uid: uid, refused: false, waitingSince: .now)
            return (id, nil, false)
        }
        if let refusal {
            Self.refuse(fd, refusal)
            if report { notice?(.refused(peer: peer, reason: refusal)) }
        }
        return UnsafeMutableRawPointer(bitPattern: id)
    }

    /// The connection with this socket context is closed (before libmicrohttpd closes its socket).
    func closed(_ context: UnsafeMutableRawPointer?) {
        guard let id = Self.id(context) else { return }
        let fd: Int32? = state.withLock { s in
            guard let entry = s.entries.removeValue(forKey: id) else { return nil }
            if let uid = entry.uid, let held = s.perUser[uid] {
                s.perUser[uid] = held > 1 ? held - 1 : nil
                if let limits, held - 1 < limits.perUser { s.limited.remove(uid) }
            }
            return entry.socket
        }
        if let fd, fd >= 0 { close(fd) }
    }

    /// Whether the connection may have its request handled (false: it was refused when accepted).
    func admitted(_ context: UnsafeMutableRawPointer?) -> Bool {
        guard let id = Self.id(context) else { return true }
        return state.withLock { !($0.entries[id]?.refused ?? false) }
    }

    /// The request line of the connection's next request has arrived.
    func requestStarted(_ context: UnsafeMutableRawPointer?) {
        update(context) { $0.requestStarted = true }
    }

    /// The request is complete (or answered early): no timeout while the handler runs and the answer goes out.
    func handling(_ context: UnsafeMutableRawPointer?) {
        update(context) { $0.waitingSince = nil }
    }

    /// The answer has gone out: the connection waits for its next request from now.
    func answered(_ context: UnsafeMutableRawPointer?) {
        update(context) { e in
            e.waitingSince = .now
            e.requestStarted = false
            e.served += 1
        }
    }

    private func update(_ context: UnsafeMutableRawPointer?, _ change: (inout Entry) -> Void) {
        guard let id = Self.id(context) else { return }
        state.withLock { s in
            if var e = s.entries[id] {
                change(&e)
                s.entries[id] = e
            }
        }
    }

    // MARK: the sweep

    /// Cuts every connection that has waited longer than the timeout for its request to arrive.
    private func sweep() {
        let now = ContinuousClock.now
        let timeout = requestTimeout
        let cut: [HTTPServerNotice] = state.withLock { s in
            var notices: [HTTPServerNotice] = []
            for (id, e) in s.entries {
                guard !e.cut, !e.refused, let since = e.waitingSince, now - since >= timeout else { continue }
                // Ends libmicrohttpd's blocked read on this socket: it closes the connection (and notifies us).
                if e.socket >= 0 { shutdown(e.socket, Int32(SHUT_RDWR)) }
                s.entries[id]?.cut = true
                notices.append(
                    e.served > 0 && !e.requestStarted
                        ? .idleClosed(peer: e.peer, timeout: timeout)
                        : .requestTimedOut(peer: e.peer, timeout: timeout, started: e.requestStarted))
            }
            return notices
        }
        for n in cut { notice?(n) }
    }

    // MARK: helpers

    private static func id(_ context: UnsafeMutableRawPointer?) -> Int? {
        context.map { Int(bitPattern: $0) }
    }

    /// Answers 503 `too_many_connections` on a socket no request has been read from yet, and shuts it down.
    private static func refuse(_ fd: Int32, _ refusal: SocketConnectionLimits.Refusal) {
        let response = HTTPResponse.error(503, code: .tooManyConnections, message: refusal.description)
        var bytes = Array(
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: \(response.body.count)\r\nConnection: close\r\n\r\n"
                .utf8)
        bytes += response.body
        // A fresh socket's buffer takes the whole answer; a client that does not read it loses nothing else.
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_RDWR))
    }
}

extension Duration {
    /// In seconds, for Dispatch.
    fileprivate var timeInterval: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
