/// The state of a host's fleet in one word.
public enum FleetVerdict: String, Codable, Sendable, Hashable, CaseIterable {
    /// The repository is sound, the hub answers and holds nothing a fetch refuses.
    case healthy
    /// The hub did not answer: nothing to repair here (its address, network, keys: the message says).
    case hubOffline = "hub-offline"
    /// The hub holds commits a fetch refuses: every sync is refused, and this host's pushes are blocked.
    case hubRefused = "hub-refused"
    /// This host's repository is damaged (objects missing, branch or host marker wrong).
    case repositoryBroken = "repository-broken"

    /// The verdict and the safe ways out. A damaged repository is re-cloned — from a hub that passes the checks
    /// (when it does not, it is repaired first, from a host whose repository is sound). A hub holding refused
    /// commits has its branch quarantined by a host whose repository is sound. A hub that does not answer cannot
    /// be repaired from here.
    public static func decide(repositoryOK: Bool, hubAnswered: Bool, hubRefused: Bool) -> (FleetVerdict, [FleetRepairWay]) {
        switch (repositoryOK, hubAnswered, hubRefused) {
        case (false, true, false): return (.repositoryBroken, [.reclone])
        case (false, _, _): return (.repositoryBroken, [])
        case (true, false, _): return (.hubOffline, [])
        case (true, true, true): return (.hubRefused, [.quarantine])
        case (true, true, false): return (.healthy, [])
        }
    }
}
