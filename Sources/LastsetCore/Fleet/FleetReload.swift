import Foundation

/// What a config reload does with the `fleet` section: the settings a running fleet can take at once (the hub's
/// URL, the sync interval, the ssh key and known_hosts, signing and its keys) are applied; what would change the
/// meaning of what this host already has is refused, saying why, and the whole reload with it (the running config
/// stays).
public enum FleetReload: Sendable, Hashable {
    /// The section is as it was.
    case unchanged
    /// Apply these settings to the running fleet.
    case apply(FleetConfig)
    /// Refused: `path` and `value` name the setting, `message` says why and what to do.
    case refused(path: String, value: String, message: String)

    /// The verdict for a reload from `running` to `next` (nil: no `fleet` section); `defaultHost` is what an absent
    /// `host` means (the machine's hostname).
    public static func decide(running: FleetConfig?, next: FleetConfig?, defaultHost: String) -> FleetReload {
        switch (running, next) {
        case (nil, nil):
            return .unchanged
        case (nil, let n?):
            return .refused(
                path: "fleet", value: n.remote,
                message:
                    "joining a fleet takes a restart of lastsetd (at start the data directory's versions are renamed into the host's namespace)"
            )
        case (let r?, nil):
            return .refused(
                path: "fleet", value: r.remote,
                message: "leaving the fleet takes a restart of lastsetd (versions keep their fleet names)")
        case (let r?, let n?):
            let (oldHost, newHost) = (r.host ?? defaultHost, n.host ?? defaultHost)
            guard oldHost == newHost else {
                return .refused(
                    path: "fleet.host", value: newHost,
                    message:
                        "this host is \"\(oldHost)\" in the fleet: its versions are named \(oldHost)-N, so the name never changes (start from a new data directory for another name)"
                )
            }
            let (oldBranch, newBranch) = (r.branch ?? "main", n.branch ?? "main")
            guard oldBranch == newBranch else {
                return .refused(
                    path: "fleet.branch", value: newBranch,
                    message:
                        "the hub's branch changes only at a restart of lastsetd (the repository's own branch is \"\(oldBranch)\")"
                )
            }
            // Defaults spelt out change nothing.
            func resolved(_ c: FleetConfig) -> FleetConfig {
                var c = c
                c.host = c.host ?? defaultHost
                c.branch = c.branch ?? "main"
                c.interval = c.interval ?? "60s"
                return c
            }
            return resolved(r) == resolved(n) ? .unchanged : .apply(n)
        }
    }
}
