/// One thing the hub holds that a fetch refuses: the commit that brought it, the file, and the rule it breaks.
public struct FleetProblem: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The commit (nil when none of the incoming commits touches the path: cannot happen for a fetched branch).
    public var commit: String?
    /// That commit's author and subject, as git has them (`uid:1000 on line-b: capture heating line-b-3`).
    public var commitSummary: String?
    /// The file (or `commit <id>` for a signature).
    public var path: String
    public var rule: FleetRule
    public var reason: String

    /// A problem.
    public init(commit: String?, commitSummary: String?, path: String, rule: FleetRule, reason: String) {
        self.commit = commit
        self.commitSummary = commitSummary
        self.path = path
        self.rule = rule
        self.reason = reason
    }

    /// `commit 1a2b3c4d (…): templates/heating/…: why [rule]`.
    public var description: String {
        let by = commit.map { "commit \($0.prefix(12))" + (commitSummary.map { " (\($0))" } ?? "") + ": " } ?? ""
        return by + (path.hasPrefix("commit ") ? "" : "\(path): ") + "\(reason) [\(rule.rawValue)]"
    }
}
