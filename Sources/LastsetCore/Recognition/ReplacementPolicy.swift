/// What the daemon does when the machine behind a configured device turns out replaced or back at factory values
/// (a device's `replacement` in the config; issue 23, part 3).
public enum ReplacementPolicy: String, Codable, Sendable, Hashable, CaseIterable {
    /// Nothing: the machine is not fingerprinted (the default; no request beyond the poll's).
    case off
    /// The machine is fingerprinted at every poll; what it finds is logged, shown and sent as an event.
    case notify
    /// As `notify`, and a replaced or reset machine gets each page's last verified version back, through the normal
    /// replay (identity check, verification, audit), recorded as done by `policy:replacement`.
    case restore

    /// The principal a restore this policy starts is recorded under.
    public static let principal = "policy:replacement"
}
