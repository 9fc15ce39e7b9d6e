import Foundation
import LastsetFormats

/// `GET /v1/audit`.
public struct AuditPage: Codable, Sendable, Hashable {
    public var records: [AuditRecord]
    /// Lines of the log that could not be parsed.
    public var unreadable: Int
    /// With `?hosts=all` in a fleet: the host of each record (parallel to `records`).
    public var hosts: [String]?
    public init(records: [AuditRecord], unreadable: Int, hosts: [String]? = nil) {
        self.records = records
        self.unreadable = unreadable
        self.hosts = hosts
    }
}
