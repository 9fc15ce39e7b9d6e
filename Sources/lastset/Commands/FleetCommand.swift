import LastsetCore

/// `lastset fleet doctor | repair quarantine|reclone`: what is wrong with this host's fleet, and the safe ways out.
struct FleetCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "fleet", abstract: "Check this host's fleet (doctor) and repair it (quarantine a bad hub branch, re-clone).",
        discussion: """
            doctor: checks the repository, asks the hub for its branch and checks what it holds by the rules of a
            fetch (nothing is merged), naming the commit, file and rule of each problem; exit 0 when healthy.
            repair quarantine: keeps the hub's refused branch as lastset-quarantine/<host>-<time> and resets it to this
            host's commits, in one atomic push, only if the branch is still what was checked (--head: what doctor showed).
            repair reclone: moves the repository aside and clones the hub afresh, every file checked, this host's own
            files only when they match its archive. Each repair is audited (--reason).
            """,
        arguments: [
            .init(name: "ACTION", help: "doctor or repair"),
            .init(name: "WAY", help: "repair: quarantine or reclone", isOptional: true),
        ],
        options: [
            .value("--reason", "TEXT", "Why (kept in the repair's audit record; required by repair)"),
            .value("--head", "COMMIT", "repair quarantine: the hub head doctor reported (refused when the hub moved since)"),
        ])

    /// What to do.
    enum Action: Equatable {
        case doctor
        case repair(FleetRepairWay)
    }

    let action: Action
    let reason: String?
    let head: String?

    /// Takes ACTION, WAY and the options.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        reason = arguments.value("--reason")
        head = arguments.value("--head")
        let way = arguments.optionalArgument("WAY")
        switch arguments.argument("ACTION") {
        case "doctor":
            guard way == nil else { throw UsageError("fleet doctor takes no further argument", command: Self.spec) }
            action = .doctor
        case "repair":
            guard let way, let w = FleetRepairWay(rawValue: way) else {
                throw UsageError("fleet repair needs the way out: quarantine or reclone", command: Self.spec)
            }
            action = .repair(w)
        case let other:
            throw UsageError("unknown fleet action \"\(other)\" (expected doctor or repair)", command: Self.spec)
        }
    }

    /// A repair needs a reason; --head only for a quarantine.
    func validate() throws(UsageError) {
        if case .repair = action, (reason ?? "").isEmpty {
            throw UsageError("fleet repair needs --reason TEXT (kept in its audit record)", command: Self.spec)
        }
        if head != nil, action != .repair(.quarantine) {
            throw UsageError("--head is for fleet repair quarantine", command: Self.spec)
        }
    }

    /// Asks the daemon and prints what it found or did.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        switch action {
        case .doctor:
            let diagnosis = try context.api.get(FleetDiagnosis.self, "/v1/fleet/doctor")
            if context.options.json { try context.printJSON(diagnosis) } else { context.print(FleetView.doctor(diagnosis)) }
            return diagnosis.verdict == .healthy ? .success : .failure
        case .repair(let way):
            let path =
                "/v1/fleet/repair/\(way.rawValue)" + DaemonAPI.query([("reason", reason), ("head", head)])
            let report = try context.api.post(FleetRepairReport.self, path, body: [])
            if context.options.json { try context.printJSON(report) } else { context.print(FleetView.repair(report)) }
            return report.result == .done ? .success : .failure
        }
    }
}
