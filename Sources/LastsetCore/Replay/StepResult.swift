/// A `beforeWrite` / `afterWrite` step's outcome.
public struct StepResult: Codable, Sendable, Hashable {
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
