import Foundation
import LastsetFormats

/// `GET /v1/health`.
public struct HealthInfo: Codable, Sendable, Hashable {
    /// `ok`, or `stopping` during shutdown.
    public var status: HealthStatus
    public var version: String
    public var startedAt: Date
    public var configFile: String
    public var dataDirectory: String
    public var devices: Int
    public var pages: Int
    public var runningJobs: Int
    /// The fleet (this host, its hub, the last sync); nil without a `fleet` section.
    public var fleet: FleetStatus?
    /// What broke the audit log's hash chain, while nothing is written until an administrator acknowledges it; nil
    /// when the chain is intact (`lastset audit verify`).
    public var auditChainBroken: String?

    public init(
        status: HealthStatus, version: String, startedAt: Date, configFile: String, dataDirectory: String, devices: Int, pages: Int,
        runningJobs: Int, auditChainBroken: String? = nil
    ) {
        self.status = status
        self.version = version
        self.startedAt = startedAt
        self.configFile = configFile
        self.dataDirectory = dataDirectory
        self.devices = devices
        self.pages = pages
        self.runningJobs = runningJobs
        self.fleet = nil
        self.auditChainBroken = auditChainBroken
    }
}
