import LastsetCore

/// `lastset change request|list|show|approve|apply`: four-eyes change control (docs/CHANGE-CONTROL.md).
struct Change: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "change", abstract: "Request, approve and apply a change to a protected page (four eyes).",
        discussion: """
            request PAGE --device DEVICE --reason TEXT [--version N]: files a change request, which is a dry run of the
            page on the device; its hash covers the device's identity, its as-found values, the template version and the
            plan. approve ID --meaning approval|review|responsibility --reason TEXT: signs it (an approver, never the
            requester). apply ID [--reason TEXT]: writes it, only if a fresh dry run reproduces the approved hash; a
            machine changed since gets "stale approval" and nothing is written. list, show ID: the requests.
            Exit status: 0 done (apply: every register verified), 1 refused or not verified.
            """,
        arguments: [
            .init(name: "ACTION", help: "request, list, show, approve or apply"),
            .init(name: "ARG", help: "request: PAGE; show, approve, apply: the request's id", isOptional: true),
        ],
        options: [
            .value("--device", "DEVICE", "request: the configured device"),
            .value("--version", "N", "request: the template version (default: the latest)"),
            .value("--reason", "TEXT", "Why (required by request and approve)"),
            .value("--meaning", "MEANING", "approve: approval (releases the change), review or responsibility"),
        ])

    /// What to do.
    enum Action: String, CaseIterable {
        case request, list, show, approve, apply
    }

    let action: Action
    let argument: String?
    let device: String?
    let version: TemplateVersionRef?
    let reason: String?
    let meaning: SignatureMeaning?

    /// Takes ACTION, ARG and the options.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        let name = arguments.argument("ACTION")
        guard let action = Action(rawValue: name) else {
            throw UsageError("unknown change action \"\(name)\" (expected request, list, show, approve or apply)", command: Self.spec)
        }
        self.action = action
        argument = arguments.optionalArgument("ARG")
        device = arguments.value("--device")
        version = try arguments.templateVersion("--version")
        reason = arguments.value("--reason")
        if let text = arguments.value("--meaning") {
            guard let m = SignatureMeaning(rawValue: text), m != .authorship else {
                throw UsageError("--meaning must be approval, review or responsibility (got \"\(text)\")", command: Self.spec)
            }
            meaning = m
        } else {
            meaning = nil
        }
    }

    /// Each action's arguments.
    func validate() throws(UsageError) {
        switch action {
        case .list:
            if argument != nil { throw UsageError("change list takes no further argument", command: Self.spec) }
        case .request:
            guard let page = argument else { throw UsageError("change request needs PAGE", command: Self.spec) }
            _ = try ArgumentCheck.pageId(page, Self.spec)
            guard let device else { throw UsageError("change request needs --device DEVICE", command: Self.spec) }
            _ = try ArgumentCheck.deviceId(device, option: "--device", Self.spec)
            if (reason ?? "").isEmpty { throw UsageError("change request needs --reason TEXT", command: Self.spec) }
        case .show, .apply:
            if argument == nil { throw UsageError("change \(action.rawValue) needs the request's id", command: Self.spec) }
        case .approve:
            if argument == nil { throw UsageError("change approve needs the request's id", command: Self.spec) }
            if meaning == nil { throw UsageError("change approve needs --meaning", command: Self.spec) }
            if (reason ?? "").isEmpty { throw UsageError("change approve needs --reason TEXT", command: Self.spec) }
        }
    }

    /// Asks the daemon and prints the request (or the apply's report).
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let id = DaemonAPI.escape(argument ?? "")
        switch action {
        case .list:
            let all = try context.api.get([ChangeRequest].self, "/v1/changes")
            if context.options.json { try context.printJSON(all) } else { context.print(TextView.changes(all)) }
            return .success
        case .show:
            return try show(context, try context.api.get(ChangeRequest.self, "/v1/changes/\(id)"))
        case .request:
            let body = ChangeRequestBody(page: argument ?? "", device: device ?? "", version: version, reason: reason ?? "")
            return try show(context, try context.api.post(ChangeRequest.self, "/v1/changes", json: body))
        case .approve:
            let body = ChangeSignatureBody(meaning: meaning ?? .approval, reason: reason ?? "")
            return try show(context, try context.api.post(ChangeRequest.self, "/v1/changes/\(id)/approve", json: body))
        case .apply:
            let job = try context.api.post(JobInfo.self, "/v1/changes/\(id)/apply", json: ChangeApplyBody(reason: reason))
            if context.options.json { try context.printJSON(job) } else { context.print(job.replay.map { TextView.replay($0) } ?? []) }
            return job.replay?.status == .succeeded ? .success : .failure
        }
    }

    private func show(_ context: CommandContext, _ request: ChangeRequest) throws(CLIError) -> ExitCode {
        if context.options.json { try context.printJSON(request) } else { context.print(TextView.change(request)) }
        return .success
    }
}
