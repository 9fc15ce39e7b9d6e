import Foundation

/// The fleet part of `GET /v1/health`: this host, its hub and how the last sync went.
public struct FleetStatus: Codable, Sendable, Hashable {
    public var host: String
    public var remote: String
    public var branch: String
    /// Sync interval ("0s": only on request and before replays).
    public var interval: String
    public var requireSigned: Bool
    /// The last sync (nil before the first).
    public var lastSync: SyncReport?
    /// When a sync last ended ok.
    public var lastSuccessAt: Date?
    /// True when the last sync did not end ok.
    public var failing: Bool
    /// Commits not yet on the hub / on the hub not yet merged, as of the last look.
    public var ahead: Int?
    public var behind: Int?
    /// Pages whose definition here differs from the one another host's latest version was captured against
    /// (nil when every page agrees, or no other host archived it).
    public var differingPages: [FleetPageDifference]?

    /// A status.
    public init(
        host: String, remote: String, branch: String, interval: String, requireSigned: Bool, lastSync: SyncReport?,
        lastSuccessAt: Date?, ahead: Int?, behind: Int?
    ) {
        self.host = host
        self.remote = remote
        self.branch = branch
        self.interval = interval
        self.requireSigned = requireSigned
        self.lastSync = lastSync
        self.lastSuccessAt = lastSuccessAt
        failing = lastSync.map { $0.result != .ok } ?? false
        self.ahead = ahead
        self.behind = behind
    }
}
