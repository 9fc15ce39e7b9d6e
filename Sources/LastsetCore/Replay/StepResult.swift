import LastsetFormats

/// A `beforeWrite` / `afterWrite` step's outcome.
public struct StepResult: Sendable, Hashable {
    public var address: Int
    public var value: Int
    /// How the step ended.
    public var status: StepStatus
    public var message: String?
    /// The register read back right after the write (nil when not written or unreadable).
    public var readBack: Int?

    /// Sets every field.
    public init(address: Int, value: Int, status: StepStatus, message: String? = nil, readBack: Int? = nil) {
        self.address = address
        self.value = value
        self.status = status
        self.message = message
        self.readBack = readBack
    }
}

extension StepResult: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = StepResult(address: 0, value: 0, status: .ok)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("message", &r.message)
        try f.field("readBack", &r.readBack)
        try f.field("status", &r.status)
        try f.field("value", &r.value)
    }
}
