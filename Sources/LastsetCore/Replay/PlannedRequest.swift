import LastsetFormats

/// A write request as the records show it — the report's plan, the journal's write, answer and re-plan
/// events, a `beforeWrite` / `afterWrite` step: its function, first register, word count and registers,
/// not its words.
public struct PlannedRequest: Sendable, Hashable {
    public var function: WriteRequest.Function
    public var address: Int
    public var count: Int
    /// The registers it writes (empty for a beforeWrite / afterWrite step).
    public var registerIds: [String]

    /// Sets every field.
    public init(function: WriteRequest.Function, address: Int, count: Int, registerIds: [String]) {
        self.function = function
        self.address = address
        self.count = count
        self.registerIds = registerIds
    }

    /// The recorded form of a planned write.
    public init(_ request: WriteRequest) {
        self.init(
            function: request.function, address: request.address, count: request.words.count,
            registerIds: request.registerIds)
    }
}

extension PlannedRequest: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = PlannedRequest(function: .fc16, address: 0, count: 0, registerIds: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("count", &r.count)
        try f.field("function", &r.function)
        try f.field("registerIds", &r.registerIds)
    }
}
