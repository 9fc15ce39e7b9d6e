import LastsetCore

/// Hands out one shared `ModbusConnection` per machine (`MachineKey`: the resolved TCP peer, the
/// serial device's real path), so every request to one peer or line is serialised by one actor,
/// whichever spelling of the endpoint a job used.
public actor ConnectionPool {
    private var connections: [MachineKey: ModbusConnection] = [:]

    /// An empty pool.
    public init() {}

    /// The connection serving `endpoint` and the machine it reaches, created with `options` on first
    /// use. Callers pass their own options per request, a serial line's framing included (`LinkOptions.line`):
    /// the first endpoint to reach a line does not set it for the others.
    public func connection(for endpoint: Endpoint, options: LinkOptions = LinkOptions()) async -> (
        connection: ModbusConnection, machine: MachineKey
    ) {
        let resolved = await EndpointResolver.resolve(endpoint)
        if let existing = connections[resolved.key] { return (existing, resolved.key) }
        let connection = ModbusConnection(endpoint: resolved.connectEndpoint, options: options)
        connections[resolved.key] = connection
        return (connection, resolved.key)
    }

    /// Number of distinct connections handed out.
    public var count: Int { connections.count }

    /// Closes every connection (they reopen on their next request) and forgets them.
    public func closeAll() async {
        let all = Array(connections.values)
        connections.removeAll()
        for connection in all { await connection.close() }
    }
}
