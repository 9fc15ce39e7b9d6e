import Foundation

/// The optional `fleet` section: share templates and audit records with other hosts through a git hub.
public struct FleetConfig: Codable, Sendable, Hashable {
    /// git URL or path of the hub (`ssh://git@hub/lastset.git`, `git@hub:lastset.git`, `/srv/lastset.git`).
    public var remote: String
    /// How often to sync ("60s" default; "0s": only on request and before replays).
    public var interval: String?
    /// Branch on the hub (default "main").
    public var branch: String?
    /// This host's name in the fleet (default: the hostname); names its versions and audit file.
    public var host: String?
    /// Private key ssh uses to reach the hub.
    public var sshKey: String?
    /// The known_hosts file holding the hub's host key (ssh checks it: `StrictHostKeyChecking=yes`); default:
    /// ssh's own (`~/.ssh/known_hosts`, `/etc/ssh/ssh_known_hosts`).
    public var knownHosts: String?
    /// Use only commits signed by a key in `allowedSigners`.
    public var requireSigned: Bool?
    /// git's SSH allowed-signers file (`principal key-type key` lines).
    public var allowedSigners: String?
    /// Private SSH key this host signs its commits with.
    public var signingKey: String?

    /// A fleet section.
    public init(
        remote: String, interval: String? = nil, branch: String? = nil, host: String? = nil, sshKey: String? = nil,
        requireSigned: Bool? = nil, allowedSigners: String? = nil, signingKey: String? = nil, knownHosts: String? = nil
    ) {
        self.knownHosts = knownHosts
        self.remote = remote
        self.interval = interval
        self.branch = branch
        self.host = host
        self.sshKey = sshKey
        self.requireSigned = requireSigned
        self.allowedSigners = allowedSigners
        self.signingKey = signingKey
    }

    /// Every key the section accepts.
    public static let keys = [
        "remote", "interval", "branch", "host", "sshKey", "requireSigned", "allowedSigners", "signingKey", "knownHosts",
    ]
}
