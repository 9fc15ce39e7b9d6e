import Foundation
import LastsetCore
import LastsetFormats

/// The `fleet` section resolved for use: defaults filled in, durations parsed.
public struct FleetSettings: Sendable, Hashable {
    public var remote: String
    public var branch: String
    /// This host's name in the fleet.
    public var host: String
    /// Between automatic syncs; nil: only on request and before replays.
    public var interval: Duration?
    /// As written in the config ("60s").
    public var intervalText: String
    public var sshKey: String?
    /// The known_hosts file ssh checks the hub's host key against (nil: ssh's own files).
    public var knownHosts: String?
    public var requireSigned: Bool
    public var allowedSigners: String?
    public var signingKey: String?
    /// Bound on a whole sync's network calls (fetch, push).
    public var networkTimeout: Duration
    /// Bound on the fetch before a replay: a replay never waits longer on the hub.
    public var replayFetchTimeout: Duration
    /// Bound on local git calls (add, commit, merge).
    public var localTimeout: Duration
    /// Bound on packing the repository (`git gc`, `Fleet.upkeep`).
    public var packTimeout: Duration
    /// The repository's growth as it was before the growth policy (git's own automatic gc on, no packing when idle,
    /// the audit export's whole file read and rewritten each time): `make bench-fleet`'s "before" only; no config sets
    /// it.
    public var legacyGrowth = false

    /// Settings from the config section (already checked by the config checker).
    public init(_ config: FleetConfig, defaultHost: String = FleetSettings.hostname()) {
        remote = config.remote
        branch = config.branch ?? "main"
        host = config.host ?? defaultHost
        intervalText = config.interval ?? "60s"
        let d = DurationText.parse(intervalText) ?? .seconds(60)
        interval = d > .zero ? d : nil
        sshKey = config.sshKey
        knownHosts = config.knownHosts
        requireSigned = config.requireSigned ?? false
        allowedSigners = config.allowedSigners
        signingKey = config.signingKey
        networkTimeout = .seconds(30)
        replayFetchTimeout = .seconds(3)
        localTimeout = .seconds(60)
        packTimeout = .seconds(600)
    }

    /// The machine's hostname up to the first dot, made a safe name ("lastset" if none is usable).
    public static func hostname() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count) == 0 else { return "lastset" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let short = String(name.split(separator: ".").first ?? "")
        return SafeName.isValid(short) ? short : "lastset"
    }
}
