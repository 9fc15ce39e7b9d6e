import Foundation

/// What `lastset fleet doctor` found (`GET /v1/fleet/doctor`): this host's repository, whether the hub answers,
/// and what the hub holds checked by the very rules of a fetch (`IncomingChanges`, signatures under
/// `requireSigned`), each problem with the commit that brought it; then the verdict and the safe ways out.
public struct FleetDiagnosis: Codable, Sendable, Hashable {
    public var host: String
    public var remote: String
    public var branch: String
    public var checkedAt: Date
    /// The checks of this host's repository, in order.
    public var repository: [FleetRepositoryFinding]
    /// Whether the hub answered and what its branch holds.
    public var hub: FleetHubState
    /// What the hub holds that a fetch refuses, each with the commit that brought it.
    public var problems: [FleetProblem]
    /// The one-word state (`FleetVerdict.decide`).
    public var verdict: FleetVerdict
    /// The repairs that are safe in this state (none when healthy, or when the hub does not answer).
    public var repairs: [FleetRepairWay]

    /// A diagnosis; the verdict and repairs are decided from the findings.
    public init(
        host: String, remote: String, branch: String, checkedAt: Date, repository: [FleetRepositoryFinding],
        hub: FleetHubState, problems: [FleetProblem]
    ) {
        self.host = host
        self.remote = remote
        self.branch = branch
        self.checkedAt = checkedAt
        self.repository = repository
        self.hub = hub
        self.problems = problems
        (verdict, repairs) = FleetVerdict.decide(
            repositoryOK: repository.allSatisfy(\.ok), hubAnswered: hub.answered, hubRefused: !problems.isEmpty)
    }
}

/// The hub as the doctor found it.
public struct FleetHubState: Codable, Sendable, Hashable {
    /// Whether it answered (within the network deadline).
    public var answered: Bool
    /// Its branch's commit (nil when it has none yet, or did not answer).
    public var head: String?
    /// Why it did not answer.
    public var message: String?
    /// Commits of its branch this host has not merged.
    public var incoming: Int
    /// Commits of this host the hub lacks.
    public var ahead: Int?

    /// A state.
    public init(answered: Bool, head: String?, message: String?, incoming: Int, ahead: Int?) {
        self.answered = answered
        self.head = head
        self.message = message
        self.incoming = incoming
        self.ahead = ahead
    }
}
