import CMicroHTTPD
import Glibc
import LastsetCore
import Synchronization

/// The application's request handler: called once per complete request, in a detached task.
///
/// It runs on the shared cooperative pool, so it must not block (hand blocking Modbus I/O to the device's own
/// executor and `await` it); the connection's MHD thread waits for the result.
public typealias HTTPHandler = @Sendable (HTTPRequest) async -> HTTPResponse

/// An HTTP/1.1 server over libmicrohttpd on a Unix socket and/or a TCP address.
///
/// Each connection gets its own thread, so a slow handler delays only its own client. `stop()` waits for
/// in-flight requests to finish, then closes the listeners and removes the socket file — so never call it from
/// inside a handler (it would wait for itself).
public final class HTTPServer: Sendable {
    private struct Listener {
        let daemon: OpaquePointer
        let context: Unmanaged<ListenerContext>
    }

    private struct State {
        var listeners: [Listener] = []
        var tcpPort: UInt16?
        var socketPathOwned: String?
    }

    /// The configuration the server was created with.
    public let configuration: HTTPServerConfiguration
    private let handler: HTTPHandler
    private let state = Mutex(State())

    /// Validates the configuration; nothing is bound until `start()`.
    public init(configuration: HTTPServerConfiguration, handler: @escaping HTTPHandler) throws(HTTPServerError) {
        guard configuration.unixSocketPath != nil || configuration.tcp != nil else { throw .noListener }
        guard configuration.maxBodyBytes >= 0 else { throw .invalid("maxBodyBytes \(configuration.maxBodyBytes) is negative") }
        guard configuration.connectionLimit > 0 else {
            throw .invalid("connectionLimit \(configuration.connectionLimit) must be at least 1")
        }
        guard configuration.socketMode <= 0o7777 else {
            throw .invalid("socketMode \(String(configuration.socketMode, radix: 8)) is not a permission mode")
        }
        guard configuration.perClientConnectionLimit > 0 else {
            throw .invalid("perClientConnectionLimit \(configuration.perClientConnectionLimit) must be at least 1")
        }
        guard configuration.connectionTimeout > .zero else {
            throw .invalid("connectionTimeout \(configuration.connectionTimeout) must be positive")
        }
        guard configuration.requestTimeout > .zero else {
            throw .invalid("requestTimeout \(configuration.requestTimeout) must be positive")
        }
        guard configuration.socketConnectionsPerUser > 0,
            configuration.reservedSocketConnections >= 0,
            configuration.socketConnectionsPerUser <= configuration.connectionLimit - configuration.reservedSocketConnections
        else {
            throw .invalid(
                "socketConnectionsPerUser \(configuration.socketConnectionsPerUser) must be in 1...\(configuration.connectionLimit - configuration.reservedSocketConnections) (connectionLimit less the \(configuration.reservedSocketConnections) reserved)"
            )
        }
        if configuration.tls != nil {
            guard configuration.tcp != nil else { throw .invalid("TLS is configured but there is no TCP listener") }
            guard Self.supportsTLS else { throw .invalid("this libmicrohttpd was built without TLS (GnuTLS) support") }
        }
        self.configuration = configuration
        self.handler = handler
    }

    deinit { stop() }

    /// Whether the libmicrohttpd in use can serve HTTPS.
    public static var supportsTLS: Bool { lastset_mhd_supports_tls() != 0 }

    /// Whether the listeners are up (between `start()` and `stop()`).
    public var isServing: Bool { state.withLock { !$0.listeners.isEmpty } }

    /// The TCP port actually bound (useful with port 0), or nil when not listening on TCP.
    public var tcpPort: UInt16? { state.withLock { $0.tcpPort } }

    /// Binds the configured sockets and starts serving; on failure nothing is left bound.
    public func start() throws(HTTPServerError) {
        try state.withLock { (state: inout State) throws(HTTPServerError) in
            guard state.listeners.isEmpty else { throw .alreadyStarted }
            do throws(HTTPServerError) {
                if let path = configuration.unixSocketPath {
                    let fd = try ListenSocket.unix(path: path, mode: configuration.socketMode, backlog: backlog)
                    state.socketPathOwned = path
                    state.listeners.append(try startDaemon(fd: fd, isUnix: true, tls: nil, name: "\"\(path)\""))
                }
                if let tcp = configuration.tcp {
                    let (fd, port) = try ListenSocket.tcp(host: tcp.host, port: tcp.port, backlog: backlog)
                    state.listeners.append(
                        try startDaemon(fd: fd, isUnix: false, tls: configuration.tls, name: "\(tcp.host):\(port)"))
                    state.tcpPort = port
                }
            } catch {
                Self.shutDown(&state)
                throw error
            }
        }
    }

    /// Stops accepting, waits for in-flight requests, closes the listeners and removes the socket file. Idempotent.
    public func stop() {
        // Take the listeners out under the lock but stop them outside it: MHD_stop_daemon waits for in-flight
        // handlers, which may themselves read `tcpPort`.
        let taken = state.withLock { state in
            let taken = State(listeners: state.listeners, tcpPort: nil, socketPathOwned: state.socketPathOwned)
            state = State()
            return Taken(state: taken)
        }
        var leftover = taken.state
        Self.shutDown(&leftover)
    }

    /// Moves listener handles out of the lock; they are used by exactly one thread afterwards.
    private struct Taken: @unchecked Sendable {
        let state: State
    }

    private var backlog: Int32 { Int32(clamping: max(16, configuration.connectionLimit)) }

    private func startDaemon(fd: Int32, isUnix: Bool, tls: HTTPServerConfiguration.TLSMaterial?, name: String)
        throws(HTTPServerError) -> Listener
    {
        // Root and this process's own user may use the reserved slots (an administrator, the daemon's own tools).
        let limits = SocketConnectionLimits(
            total: configuration.connectionLimit, perUser: configuration.socketConnectionsPerUser,
            reserved: configuration.reservedSocketConnections, privileged: [0, geteuid()])
        let connections = ConnectionGuard(
            limits: isUnix ? limits : nil, requestTimeout: configuration.requestTimeout, notice: configuration.notice)
        let context = Unmanaged.passRetained(
            ListenerContext(
                handler: handler, maxBodyBytes: configuration.maxBodyBytes, uploadLimit: configuration.uploadLimit,
                isUnix: isUnix, connections: connections, tls: tls,
                keepAlive: max(.milliseconds(300), min(.seconds(15), configuration.connectionTimeout / 3))))
        let (seconds, attoseconds) = configuration.connectionTimeout.components
        let timeout = UInt32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
        // MHD copies neither PEM string: they must outlive the daemon, so the context keeps them.
        let daemon = lastset_mhd_start(
            fd, timeout, UInt32(clamping: configuration.connectionLimit),
            isUnix ? 0 : UInt32(clamping: configuration.perClientConnectionLimit), MHDBridge.uriLogger,
            MHDBridge.accessHandler, context.toOpaque(), MHDBridge.requestCompleted, MHDBridge.connectionNotified,
            context.takeUnretainedValue().tlsKey, context.takeUnretainedValue().tlsCertificate)
        guard let daemon else {
            connections.stop()
            context.release()
            close(fd)
            throw .daemonStart(name)
        }
        return Listener(daemon: daemon, context: context)
    }

    private static func shutDown(_ state: inout State) {
        for listener in state.listeners {
            // A stream's connection thread waits for its next bytes: ended first, it returns and can be joined; given
            // up to a second to send the end of its response, so its client sees a complete reply.
            let context = listener.context.takeUnretainedValue()
            for stream in context.streams.withLock({ Array($0.values) }) { stream.finish() }
            let deadline = ContinuousClock.now.advanced(by: .seconds(1))
            while !context.streams.withLock({ $0.isEmpty }) && ContinuousClock.now < deadline { usleep(10_000) }
            // MHD_stop_daemon joins every connection thread and closes the listening socket itself.
            MHD_stop_daemon(listener.daemon)
            listener.context.takeUnretainedValue().connections.stop()
            listener.context.release()
        }
        state.listeners = []
        state.tcpPort = nil
        if let path = state.socketPathOwned {
            unlink(path)
            state.socketPathOwned = nil
        }
    }
}
