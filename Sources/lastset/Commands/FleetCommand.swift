import LastsetCore

/// `lastset fleet doctor | repair quarantine|reclone | page PAGE [--take|--release]`: what is wrong with this host's
/// fleet and the safe ways out; a page's definition against the fleet's, and taking it.
struct FleetCommand: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "fleet",
        abstract: "Check this host's fleet (doctor), repair it (quarantine, reclone), compare or take a page's fleet definition.",
        discussion: """
            doctor: checks the repository, asks the hub for its branch and checks what it holds by the rules of a
            fetch (nothing is merged), naming the commit, file and rule of each problem; exit 0 when healthy.
            repair quarantine: keeps the hub's refused branch as lastset-quarantine/<host>-<time> and resets it to this
            host's commits, in one atomic push, only if the branch is still what was checked (--head: what doctor showed).
            repair reclone: moves the repository aside and clones the hub afresh, every file checked, this host's own
            files only when they match its archive. Each repair is audited (--reason) and needs the administrator role.
            page PAGE: this host's definition of PAGE against the fleet's (the one its latest version was captured
            against), register by register; exit 0 when they are the same. --take uses the fleet's definition from now
            on in place of the config's (--version: the fleet version shown; audited, --reason); --release goes back
            to the config's.
            """,
        arguments: [
            .init(name: "ACTION", help: "doctor, repair or page"),
            .init(name: "TARGET", help: "repair: quarantine or reclone; page: the page id", isOptional: true),
        ],
        options: [
            .value("--reason", "TEXT", "Why (kept in the audit record; required by repair, --take and --release)"),
            .value("--head", "COMMIT", "repair quarantine: the hub head doctor reported (refused when the hub moved since)"),
            .flag("--take", "page: use the fleet's definition of PAGE here from now on"),
            .flag("--release", "page: use the config's definition of PAGE again"),
            .value("--version", "HOST-N", "page --take: the fleet version whose definition is taken (as shown)"),
        ])

    /// What to do.
    enum Action: Equatable {
        case doctor
        case repair(FleetRepairWay)
        case page(String, Change?)
    }

    /// What `page` changes.
    enum Change: Equatable { case take, release }

    let action: Action
    let reason: String?
    let head: String?
    let version: String?

    /// Takes ACTION, TARGET and the options.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        reason = arguments.value("--reason")
        head = arguments.value("--head")
        version = arguments.value("--version")
        let target = arguments.optionalArgument("TARGET")
        switch arguments.argument("ACTION") {
        case "doctor":
            guard target == nil else { throw UsageError("fleet doctor takes no further argument", command: Self.spec) }
            action = .doctor
        case "repair":
            guard let target, let way = FleetRepairWay(rawValue: target) else {
                throw UsageError("fleet repair needs the way out: quarantine or reclone", command: Self.spec)
            }
            action = .repair(way)
        case "page":
            guard let target else { throw UsageError("fleet page needs the page id", command: Self.spec) }
            let (take, release) = (arguments.flag("--take"), arguments.flag("--release"))
            guard !(take && release) else { throw UsageError("--take or --release, not both", command: Self.spec) }
            action = .page(target, take ? .take : release ? .release : nil)
        case let other:
            throw UsageError("unknown fleet action \"\(other)\" (expected doctor, repair or page)", command: Self.spec)
        }
    }

    /// A change needs a reason; each option belongs to its action.
    func validate() throws(UsageError) {
        switch action {
        case .doctor, .page(_, nil):
            if reason != nil { throw UsageError("--reason is for repair, --take and --release", command: Self.spec) }
        case .repair, .page(_, .some):
            if (reason ?? "").isEmpty { throw UsageError("this needs --reason TEXT (kept in its audit record)", command: Self.spec) }
        }
        if case .page(let pageId, _) = action { _ = try ArgumentCheck.pageId(pageId, Self.spec) }
        if head != nil, action != .repair(.quarantine) {
            throw UsageError("--head is for fleet repair quarantine", command: Self.spec)
        }
        if version != nil, case .page(_, .take) = action {} else if version != nil {
            throw UsageError("--version is for fleet page PAGE --take", command: Self.spec)
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
            let path = "/v1/fleet/repair/\(way.rawValue)" + DaemonAPI.query([("reason", reason), ("head", head)])
            let report = try context.api.post(FleetRepairReport.self, path, body: [])
            if context.options.json { try context.printJSON(report) } else { context.print(FleetView.repair(report)) }
            return report.result == .done ? .success : .failure
        case .page(let pageId, let change):
            let base = "/v1/fleet/pages/\(DaemonAPI.escape(pageId))"
            let view: FleetPageView
            switch change {
            case nil: view = try context.api.get(FleetPageView.self, base)
            case .take?:
                view = try context.api.post(
                    FleetPageView.self, base + "/take" + DaemonAPI.query([("reason", reason), ("version", version)]), body: [])
            case .release?:
                view = try context.api.post(FleetPageView.self, base + "/release" + DaemonAPI.query([("reason", reason)]), body: [])
            }
            if context.options.json { try context.printJSON(view) } else { context.print(FleetView.page(view)) }
            return view.same || change == .release ? .success : .failure
        }
    }
}
