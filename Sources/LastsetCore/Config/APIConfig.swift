import LastsetFormats

/// Where the control API listens.
public struct APIConfig: Codable, Sendable, Hashable {
    /// Unix socket path (default `/run/lastset/api.sock`).
    public var socket: String?
    /// Optional TCP listener; off when absent.
    public var tcp: TCPAPIConfig?
    /// Roles of Unix-socket peers by group; absent: every peer the socket's mode lets in is an operator.
    public var roles: APIRolesConfig?
    /// The most connections one user (uid) may hold on the Unix socket (`SocketConnectionLimits`; default 8).
    public var socketConnectionsPerUser: Int?
    /// How long a request's headers and body may take to arrive, in all (default "30s"), on either listener.
    public var requestTimeout: String?

    public init(
        socket: String? = nil, tcp: TCPAPIConfig? = nil, roles: APIRolesConfig? = nil, socketConnectionsPerUser: Int? = nil,
        requestTimeout: String? = nil
    ) {
        self.socket = socket
        self.tcp = tcp
        self.roles = roles
        self.socketConnectionsPerUser = socketConnectionsPerUser
        self.requestTimeout = requestTimeout
    }

    /// Default Unix socket path.
    public static let defaultSocket = "/run/lastset/api.sock"
    /// `requestTimeout` when the config does not set it.
    public static let defaultRequestTimeout: Duration = .seconds(30)
    /// The accepted `requestTimeout`s.
    public static let requestTimeoutRange: ClosedRange<Duration> = .seconds(1)...(.seconds(600))

    /// `requestTimeout`, parsed (the checker has refused anything else), or the default.
    public var requestTimeoutDuration: Duration {
        requestTimeout.flatMap(DurationText.parse) ?? Self.defaultRequestTimeout
    }

    /// `socketConnectionsPerUser`, or the default.
    public var connectionsPerUser: Int { socketConnectionsPerUser ?? SocketConnectionLimits.defaultPerUser }
}
