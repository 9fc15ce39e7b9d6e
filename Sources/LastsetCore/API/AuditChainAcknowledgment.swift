/// `POST /v1/audit/acknowledge`: why an administrator acknowledges a break of the audit chain.
public struct AuditChainAcknowledgment: Codable, Sendable, Hashable {
    /// Required, not blank: kept in the `chain-acknowledged` record.
    public var reason: String

    public init(reason: String) { self.reason = reason }
}
