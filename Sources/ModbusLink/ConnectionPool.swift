import LastsetCore

/// Hands out one shared `ModbusConnection` per TCP peer and per serial line (`Endpoint.connectionKey`),
/// so every request to one line is serialised by one actor.
public actor ConnectionPool {
    private var connections: [String: ModbusConnection] = [:]

    /// An empty pool.
    public init() {}

    /// The connection serving `endpoint`, created with `options` on first use (later callers pass their
    /// own options per request).
    public func connection(for endpoint: Endpoint, options: LinkOptions = LinkOptions()) -> ModbusConnection {
        if let existing = connections[endpoint.connectionKey] { return existing }
        let connection = ModbusConnection(endpoint: endpoint, options: options)
        connections[endpoint.connectionKey] = connection
        return connection
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
