import LastsetCore

/// Where and how an `HTTPServer` listens.
public struct HTTPServerConfiguration: Sendable {
    /// A TCP listening address.
    public struct TCPListener: Sendable, Equatable {
        /// A numeric IPv4/IPv6 address or "localhost" (which means 127.0.0.1).
        public var host: String
        /// The port; 0 lets the kernel choose (read the result from `HTTPServer.tcpPort`).
        public var port: UInt16
        /// Creates a TCP listener address.
        public init(host: String, port: UInt16) {
            self.host = host
            self.port = port
        }
    }

    /// A certificate and private key (PEM text) for HTTPS on the TCP listener.
    public struct TLSMaterial: Sendable, Equatable {
        /// The certificate (chain), PEM.
        public var certificatePEM: String
        /// The private key, PEM.
        public var keyPEM: String
        /// Creates the TLS material.
        public init(certificatePEM: String, keyPEM: String) {
            self.certificatePEM = certificatePEM
            self.keyPEM = keyPEM
        }
    }

    /// The Unix socket path to listen on, or nil for none. A stale socket file there is removed first.
    public var unixSocketPath: String?
    /// The permission bits given to the Unix socket file (default 0660: owner and group may connect).
    public var socketMode: UInt32
    /// The TCP address to listen on, or nil for none (the default).
    public var tcp: TCPListener?
    /// HTTPS on the TCP listener (libmicrohttpd's GnuTLS support), or nil for plain HTTP.
    public var tls: TLSMaterial?
    /// The largest accepted request body; a larger one gets 413 `body_too_large` without being buffered.
    public var maxBodyBytes: Int
    /// A larger limit for the requests it names (method, path): uploads such as an imported template file or
    /// archive. nil: `maxBodyBytes` for every request.
    public var uploadLimit: (@Sendable (_ method: String, _ path: String) -> Int?)?
    /// How long a connection may stay silent, in whole seconds (rounded up; at least 1): while its headers or
    /// body are still coming, and while it idles between requests. A half-sent request is closed after this.
    public var connectionTimeout: Duration
    /// The most simultaneous connections per listener (each has its own thread).
    public var connectionLimit: Int
    /// The most simultaneous connections one client address may hold on the TCP listener, so a client that
    /// opens connections and sends nothing cannot take every slot (no token is needed to connect).
    /// The Unix socket has its own limit per peer uid (`socketConnectionsPerUser`).
    public var perClientConnectionLimit: Int
    /// The most simultaneous connections one peer uid may hold on the Unix socket (`SocketConnectionLimits`:
    /// anyone the socket's mode lets in connects before any role check, so no user may take every slot).
    public var socketConnectionsPerUser: Int
    /// Slots of the Unix socket only root and the server's own user may take.
    public var reservedSocketConnections: Int
    /// How long a request's headers and body may take to arrive, in all, on either listener: from the moment the
    /// connection waits for a request (accepted, or the previous response sent) until the request is complete.
    /// A request dribbled in faster than `connectionTimeout` allows is closed after this.
    public var requestTimeout: Duration
    /// Hears what the server did to a connection (a refusal, a request cut off), for the log.
    public var notice: (@Sendable (HTTPServerNotice) -> Void)?

    /// Creates a configuration; at least one of `unixSocketPath` and `tcp` must be given for `start()` to succeed.
    public init(
        unixSocketPath: String? = nil, socketMode: UInt32 = 0o660, tcp: TCPListener? = nil, tls: TLSMaterial? = nil,
        maxBodyBytes: Int = 64 * 1024, connectionTimeout: Duration = .seconds(30), connectionLimit: Int = 64,
        perClientConnectionLimit: Int = 16, socketConnectionsPerUser: Int = SocketConnectionLimits.defaultPerUser,
        reservedSocketConnections: Int = SocketConnectionLimits.defaultReserved, requestTimeout: Duration = .seconds(30)
    ) {
        self.socketConnectionsPerUser = socketConnectionsPerUser
        self.reservedSocketConnections = reservedSocketConnections
        self.requestTimeout = requestTimeout
        self.notice = nil
        self.unixSocketPath = unixSocketPath
        self.socketMode = socketMode
        self.tcp = tcp
        self.tls = tls
        self.maxBodyBytes = maxBodyBytes
        self.uploadLimit = nil
        self.connectionTimeout = connectionTimeout
        self.connectionLimit = connectionLimit
        self.perClientConnectionLimit = perClientConnectionLimit
    }
}
