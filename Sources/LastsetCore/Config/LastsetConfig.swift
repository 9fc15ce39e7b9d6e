import LastsetFormats
/// One named API token of the TCP listener, kept as the SHA-256 of its secret (never the secret itself).
public struct APITokenConfig: Codable, Sendable, Hashable {
    /// The token's name; the caller is `token:NAME` in jobs, templates and audit records.
    public var name: String
    /// What the token's holder may do.
    public var role: APIRole
    /// Lower-case hex SHA-256 of the token's secret (`printf %s "$TOKEN" | sha256sum`).
    public var sha256: String

    /// Creates a token entry.
    public init(name: String, role: APIRole, sha256: String) {
        self.name = name
        self.role = role
        self.sha256 = sha256
    }
}

/// The certificate and key (PEM files) the TCP listener serves HTTPS with.
public struct TLSConfig: Codable, Sendable, Hashable {
    /// PEM certificate (chain) file.
    public var cert: String
    /// PEM private key file.
    public var key: String

    /// Creates the TLS settings.
    public init(cert: String, key: String) {
        self.cert = cert
        self.key = key
    }
}

/// Settings of the optional TCP listener of the control API.
public struct TCPAPIConfig: Codable, Sendable, Hashable {
    /// `host:port`; off loopback only with `tls`.
    public var listen: String
    /// File holding one operator token in clear (the principal is `token:api`).
    public var tokenFile: String?
    /// Named tokens with roles, kept as hashes.
    public var tokens: [APITokenConfig]?
    /// HTTPS certificate and key; required when `listen` is not a loopback address.
    public var tls: TLSConfig?
    /// Further `host:port` names browsers reach the listener by (besides loopback and `listen`).
    public var hosts: [String]?

    /// Creates the TCP listener settings.
    public init(
        listen: String, tokenFile: String? = nil, tokens: [APITokenConfig]? = nil, tls: TLSConfig? = nil, hosts: [String]? = nil
    ) {
        self.listen = listen
        self.tokenFile = tokenFile
        self.tokens = tokens
        self.tls = tls
        self.hosts = hosts
    }

    /// Whether `host` (from a listen address, brackets optional) is a loopback address: 127.0.0.0/8, ::1 or localhost.
    public static func isLoopback(host: String) -> Bool {
        let h = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        if h == "localhost" || h == "::1" { return true }
        let parts = h.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts[0] == "127" && parts.allSatisfy { UInt8($0) != nil }
    }
}

/// Which Unix-socket peers get which role, by their groups (primary and supplementary).
public struct APIRolesConfig: Codable, Sendable, Hashable {
    /// Group names whose members are operators.
    public var operatorGroups: [String]?
    /// Group names whose members are viewers (operator wins when a peer is in both).
    public var viewerGroups: [String]?

    /// Creates the role mapping.
    public init(operatorGroups: [String]? = nil, viewerGroups: [String]? = nil) {
        self.operatorGroups = operatorGroups
        self.viewerGroups = viewerGroups
    }
}

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

/// The whole of `/etc/lastset/lastset.json`.
public struct LastsetConfig: Codable, Sendable, Hashable {
    /// Config schema version (1).
    public var version: Int
    public var api: APIConfig?
    /// Templates kept per page (default 20).
    public var history: Int?
    /// How much of the audit log the database keeps (nil: every record).
    public var audit: AuditConfig?
    public var devices: [DeviceConfig]
    public var pages: [PageDefinition]
    /// Templates and audit records shared with other hosts through a git hub; nil: this host alone.
    public var fleet: FleetConfig?

    public init(
        version: Int = 1, api: APIConfig? = nil, history: Int? = nil, audit: AuditConfig? = nil, devices: [DeviceConfig],
        pages: [PageDefinition], fleet: FleetConfig? = nil
    ) {
        self.version = version
        self.audit = audit
        self.fleet = fleet
        self.api = api
        self.history = history
        self.devices = devices
        self.pages = pages
    }

    /// Number of templates kept per page.
    public var historyLimit: Int { history ?? 20 }

    /// The page with this id.
    public func page(_ id: String) -> PageDefinition? { pages.first { $0.id == id } }
    /// The device with this id.
    public func device(_ id: String) -> DeviceConfig? { devices.first { $0.id == id } }
}
