/// Settings of the optional TCP listener of the control API.
public struct TCPAPIConfig: Codable, Sendable, Hashable {
    /// `host:port`; only loopback addresses are sensible without a proxy.
    public var listen: String
    /// File holding the bearer token.
    public var tokenFile: String?

    public init(listen: String, tokenFile: String? = nil) {
        self.listen = listen
        self.tokenFile = tokenFile
    }
}

/// Where the control API listens.
public struct APIConfig: Codable, Sendable, Hashable {
    /// Unix socket path (default `/run/lastset/api.sock`).
    public var socket: String?
    /// Optional TCP listener; off when absent.
    public var tcp: TCPAPIConfig?

    public init(socket: String? = nil, tcp: TCPAPIConfig? = nil) {
        self.socket = socket
        self.tcp = tcp
    }

    /// Default Unix socket path.
    public static let defaultSocket = "/run/lastset/api.sock"
}

/// The whole of `/etc/lastset/lastset.json`.
public struct LastsetConfig: Codable, Sendable, Hashable {
    /// Config schema version (1).
    public var version: Int
    public var api: APIConfig?
    /// Templates kept per page (default 20).
    public var history: Int?
    public var devices: [DeviceConfig]
    public var pages: [PageDefinition]

    public init(version: Int = 1, api: APIConfig? = nil, history: Int? = nil, devices: [DeviceConfig], pages: [PageDefinition]) {
        self.version = version
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
