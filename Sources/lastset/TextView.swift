import Foundation
import LastsetCore
import LastsetFormats

/// Renders API bodies as the human text `lastset` prints (tables plus summary lines). Pure: tested directly.
enum TextView {
    /// A register value as shown in tables; `-` when absent.
    static func value(_ value: RegisterValue?) -> String { value?.description ?? "-" }

    /// A time as ISO 8601 UTC with milliseconds (the API's own form); `-` when absent.
    static func time(_ date: Date?) -> String { date.map(TimeText.iso8601) ?? "-" }

    /// `lastset devices`.
    static func devices(_ devices: [DeviceStatus]) -> [String] {
        guard !devices.isEmpty else { return ["no devices configured"] }
        var table = Table([
            .init("ID"), .init("ENDPOINT"), .init("UNIT", .right), .init("PAGES"), .init("POLL"), .init("STATE"), .init("JOB"),
            .init("APPLIED"), .init("LAST ERROR"),
        ])
        for device in devices {
            let state: String
            switch device.reachable {
            case nil: state = "unknown"
            case true?: state = "reachable"
            case false?: state = "unreachable"
            }
            table.append([
                device.id, device.endpoint, String(device.unit), device.pages.isEmpty ? "-" : device.pages.joined(separator: ","),
                device.poll, state, device.busy?.rawValue ?? "-", appliedColumn(device), device.lastError ?? "-",
            ])
        }
        // A page left partially written (interrupted or failed) is named under the table with its mark's
        // message: an unlock sent without its commit is said there.
        let marks = devices.flatMap { d in (d.unverified ?? []).map { "\(d.id) \($0.pageId): \($0.message)" } }
        return table.lines + marks
    }

    /// A step's status as the CLI says it (`ok`, `failed`, `in doubt`, `not attempted`).
    static func statusText(_ status: StepStatus) -> String {
        switch status {
        case .ok: return "ok"
        case .failed: return "failed"
        case .inDoubt: return "in doubt"
        case .notAttempted: return "not attempted"
        }
    }

    /// "heating v3 conforms, cooling -" for the devices table; a page a failed replay partially wrote holds no
    /// version: "heating partially written".
    static func appliedColumn(_ device: DeviceStatus) -> String {
        let parts = device.pages.compactMap { page -> String? in
            if device.unverified?.contains(where: { $0.pageId == page && $0.reason == .failed }) == true {
                return "\(page) partially written"
            }
            guard let a = device.applied?[page] else { return nil }
            let state = device.conformance?[page].map { " \($0.rawValue)" } ?? ""
            return "\(page) v\(a.versionId)\(state)"
        }
        return parts.isEmpty ? "-" : parts.joined(separator: ", ")
    }

    /// `lastset pages`.
    static func pages(_ pages: [PageSummary]) -> [String] {
        guard !pages.isEmpty else { return ["no pages configured"] }
        var table = Table([
            .init("ID"), .init("TITLE"), .init("REGISTERS", .right), .init("DEVICES"), .init("LATEST"), .init("PROBLEM"),
        ])
        for page in pages {
            table.append([
                page.id, page.title ?? "-", String(page.registers),
                page.devices.isEmpty ? "-" : page.devices.joined(separator: ","),
                (page.latestVersionId ?? page.latestVersion.map(String.init)).map { "v\($0)" } ?? "none",
                page.templateProblem ?? "-",
            ])
        }
        // Descriptions are prose: one line each under the table rather than a column.
        let described = pages.filter { $0.description != nil }
        return table.lines + described.map { "\($0.id): \($0.description!)" }
    }

    /// `lastset status`: the daemon's health and its running jobs.
    static func status(_ health: HealthInfo, socket: String, runningJobs: [JobInfo]) -> [String] {
        var lines = CommandSpec.helpRows([
            ("daemon", "\(health.status) (lastsetd \(health.version))"),
            ("socket", socket),
            ("started", time(health.startedAt)),
            ("config", health.configFile),
            ("data", health.dataDirectory),
            ("devices", String(health.devices)),
            ("pages", String(health.pages)),
            ("running jobs", String(health.runningJobs)),
            ("audit chain", health.auditChainBroken.map { "BROKEN, nothing is written: \($0)" } ?? "intact"),
        ]).map { String($0.dropFirst(2)) }
        if !runningJobs.isEmpty {
            var table = Table([
                .init("JOB"), .init("KIND"), .init("PAGE"), .init("DEVICE"), .init("PHASE"), .init("PROGRESS", .right),
                .init("STARTED"),
            ])
            for job in runningJobs {
                table.append([
                    job.id, job.kind.rawValue, job.pageId, job.device, job.progress.map { "\($0.phase)" } ?? "-",
                    job.progress.map { "\($0.done)/\($0.total)" } ?? "-", time(job.startedAt),
                ])
            }
            lines += [""] + table.lines
        }
        return lines
    }

    /// `lastset audit verify`: the chain's state, then each finding (and those acknowledged) by record.
    static func auditChain(_ report: AuditChainReport) -> [String] {
        let head = report.head.map { "record \($0.seq), \($0.hash.prefix(16))…" } ?? "none"
        var lines = CommandSpec.helpRows([
            ("audit chain", report.intact ? "intact" : "BROKEN (\(report.findings.count) finding\(report.findings.count == 1 ? "" : "s"))"),
            ("records", String(report.records)),
            ("head", head),
            ("writes", report.refusingWrites.map { "refused until acknowledged: \($0)" } ?? "allowed"),
        ]).map { String($0.dropFirst(2)) }
        if !report.findings.isEmpty {
            lines += [""] + report.findings.map { "  \($0.description)" }
        }
        if !report.acknowledged.isEmpty {
            lines += ["", "acknowledged:"] + report.acknowledged.map { "  \($0.description)" }
        }
        return lines
    }

    /// `lastset templates PAGE`.
    static func templates(_ listings: [TemplateListing], pageId: String) -> [String] {
        guard !listings.isEmpty else { return ["no templates archived for page \"\(pageId)\""] }
        var table = Table([
            .init("VERSION", .right), .init("CAPTURED"), .init("SOURCE"), .init("ENTRIES", .right), .init("CHECKSUM"),
            .init("PROBLEM"),
        ])
        for listing in listings {
            table.append([
                listing.id, time(listing.capturedAt), listing.sourceDevice ?? "-",
                listing.entryCount.map(String.init) ?? "-", listing.checksumOK ? "ok" : "BAD",
                listing.problem ?? listing.notApplicable ?? "-",
            ])
        }
        return table.lines
    }

    /// `lastset show PAGE`: a template's header, its entries and what was skipped.
    static func template(_ template: Template, applicability: TemplateApplicability? = nil) -> [String] {
        let source = template.source
        let sourceText =
            (source.deviceId.map { "\($0) (\(source.endpoint), unit \(source.unit))" }
                ?? "\(source.endpoint), unit \(source.unit)")
        var header: [(String, String)] = [
            ("page", template.pageId),
            ("version", template.versionId.id),
            ("captured", time(template.capturedAt) + (template.capturedBy.map { " by \($0)" } ?? "")),
            ("source", sourceText),
        ]
        if let provenance = template.provenance { header.append(("provenance", provenance)) }
        for identity in source.identity {
            header.append(("identity", "\(identity.registerId) = \(identity.value)"))
        }
        header += [("page hash", template.pageHash), ("entries", String(template.entries.count))]
        if let a = applicability, !a.applicable {
            header.append(("applicable", "no, not on this host's page definition"))
            for line in a.refused { header.append(("refused", line)) }
        }
        if let a = applicability, !a.leftOut.isEmpty {
            header.append(("left out here", a.leftOut.joined(separator: ", ")))
        }
        var lines = CommandSpec.helpRows(header).map { String($0.dropFirst(2)) }
        if !template.entries.isEmpty {
            var table = Table([
                .init("REGISTER"), .init("ADDRESS", .right), .init("LENGTH", .right), .init("VALUE"), .init("RAW"),
                .init("READ AT"),
            ])
            for entry in template.entries {
                table.append([
                    entry.registerId, String(entry.address), String(entry.length), value(entry.value, entry.registerId),
                    entry.valueData,
                    time(entry.lastDate),
                ])
            }
            lines += [""] + table.lines
        }
        if !template.skipped.isEmpty {
            lines += ["", "skipped:"] + skippedTable(template.skipped)
        }
        return lines
    }

    /// `lastset audit`.
    static func audit(_ page: AuditPage) -> [String] {
        var lines: [String] = []
        if page.records.isEmpty {
            lines.append("no audit records")
        } else {
            let hosts = page.hosts.flatMap { $0.count == page.records.count ? $0 : nil }
            var table = Table(
                (hosts == nil ? [] : [.init("HOST")]) + [
                    .init("TIME"), .init("KIND"), .init("WHO"), .init("PAGE"), .init("DEVICE"), .init("VERSION", .right),
                    .init("RESULT"), .init("JOB"), .init("MESSAGE"),
                ])
            for (i, record) in page.records.enumerated() {
                let version: String = record.templateVersionId ?? record.templateVersion.map(String.init) ?? "-"
                let job: String = record.job.map { String($0.prefix(8)) } ?? "-"
                let message: String = record.message.flatMap { $0.isEmpty ? nil : $0 } ?? "-"
                let host: [String] = hosts.map { [$0[i]] } ?? []
                let cells: [String] = [
                    time(record.time), record.kind.rawValue, record.who, record.pageId, record.device, version,
                    record.result.rawValue, job, message,
                ]
                table.append(host + cells)
            }
            lines = table.lines
        }
        if page.unreadable > 0 {
            lines.append("\(page.unreadable) unreadable line\(page.unreadable == 1 ? "" : "s") in the audit log")
        }
        return lines
    }

    /// A finished capture.
    static func capture(_ report: CaptureReport) -> [String] {
        var lines: [String] = []
        let what = "capture of \(report.pageId) from \(report.device)"
        if report.unchanged == true {
            lines.append(
                "\(what): unchanged, still v\(report.versionId ?? "?") (identical to the latest version, nothing archived; \(plural(report.entryCount, "entry", "entries")), \(plural(report.requests, "read request")))"
            )
            if let error = report.error { lines.append("its audit record was NOT written: \(error)") }
        } else if report.archived {
            let version = (report.versionId ?? report.version.map(String.init)).map { " as version \($0)" } ?? ""
            lines.append(
                "\(what): archived\(version) (\(plural(report.entryCount, "entry", "entries")), \(plural(report.requests, "read request")))"
            )
        } else if let error = report.error {
            lines.append("\(what) FAILED: \(error); nothing archived, the previous template stays current")
        } else {
            lines.append(
                "\(what) is INVALID: \(plural(report.problems.count, "bad register")); nothing archived, the previous template stays current"
            )
        }
        if !report.problems.isEmpty {
            var table = Table([.init("REGISTER"), .init("ADDRESS", .right), .init("VALUE"), .init("RAW"), .init("PROBLEM")])
            for problem in report.problems {
                table.append([
                    problem.registerId, String(problem.address), value(problem.value, problem.registerId),
                    problem.valueData ?? "-", problem.rule,
                ])
            }
            lines += table.lines
        }
        if !report.skipped.isEmpty {
            lines.append("skipped \(plural(report.skipped.count, "register")):")
            lines += skippedTable(report.skipped)
        }
        return lines
    }

    /// A finished replay, or a dry run / diff.
    static func replay(_ report: ReplayReport, factory: [String: RegisterValue] = [:]) -> [String] {
        let planned = report.status == .planned || report.options.dryRun
        let action =
            planned
            ? "dry run of \(report.pageId) \(versionLabel(report)) on" : "apply \(report.pageId) \(versionLabel(report)) to"
        // An ad-hoc target is named by its endpoint already.
        let target =
            report.target.contains("://")
            ? "\(report.endpoint), unit \(report.unit)" : "\(report.target) (\(report.endpoint), unit \(report.unit))"
        var lines = ["\(action) \(target): \(statusText(report.status))"]
        lines += report.warnings.map { "warning: \($0)" }
        let badIdentity = report.identity.filter { !$0.matches }
        if !badIdentity.isEmpty {
            var table = Table([.init("IDENTITY"), .init("EXPECTED"), .init("ACTUAL"), .init("PROBLEM")])
            for check in badIdentity {
                table.append([
                    check.registerId, value(check.expected, check.registerId), value(check.actual, check.registerId),
                    check.message ?? "does not match",
                ])
            }
            lines += table.lines
        } else if !report.identity.isEmpty {
            lines.append("identity matches: " + report.identity.map(\.registerId).joined(separator: ", "))
        }
        for (name, steps) in [("beforeWrite", report.beforeWrite), ("afterWrite", report.afterWrite)] {
            for (index, step) in steps.enumerated() {
                lines.append(
                    "\(name)[\(index)] write \(step.value) to \(step.address): \(statusText(step.status))"
                        + (step.message.map { " (\($0))" } ?? ""))
            }
        }
        if !report.registers.isEmpty {
            lines += registerTable(report.registers, planned: planned, factory: factory)
        }
        if planned {
            for request in report.plan {
                lines.append(
                    "plan: \(request.function.rawValue) at \(request.address), \(plural(request.count, "register")): \(request.registerIds.joined(separator: ", "))"
                )
            }
            lines.append("differs \(report.count(.differs)) / unchanged \(report.count(.unchanged))")
        } else {
            lines.append(
                "verified \(report.count(.verified)) / mismatch \(report.count(.mismatch)) / rejected \(report.count(.rejected)) / failed \(report.count(.failed)) / not attempted \(report.count(.notAttempted))"
                    + [(RegisterStatus.inDoubt, "in doubt"), (.unverified, "unverified"), (.changedLater, "changed later")]
                    .filter { report.count($0.0) > 0 }.map { " / \($0.1) \(report.count($0.0))" }.joined()
            )
            if let doubt = report.firstInDoubt {
                lines.append("last confirmed: \(report.lastConfirmed ?? "none"); first in doubt: \(doubt)")
            }
        }
        if let stoppedAt = report.stoppedAt { lines.append("stopped at: \(stoppedAt)") }
        if let reason = report.reason { lines.append("reason: \(reason)") }
        if report.fellBackToFC06 { lines.append("note: the device refused FC16; the values were written with FC06") }
        if let rollback = report.rollback {
            if rollback.restored {
                lines.append("rollback: restored (\(plural(rollback.registers.count, "register")) verified)")
            } else {
                lines.append("rollback: NOT restored; the target's values now:")
                lines += registerTable(rollback.registers, planned: false)
            }
        }
        lines.append("requests \(report.requests), write frames \(report.writeFrames)")
        // The id `lastset certificate` and `lastset audit --job` take (not the id of the daemon's running job).
        if let job = report.auditJob { lines.append("audit job \(job)") }
        return lines
    }

    /// A finished job: its report, or the reason it could not run.
    static func job(_ job: JobInfo) -> [String] {
        var lines: [String] = []
        if let capture = job.capture { lines += self.capture(capture) }
        if let replay = job.replay { lines += self.replay(replay) }
        if let all = job.applyAll { lines += applyAll(all) }
        if let asFound = job.asFound { lines += self.asFound(asFound) }
        if let error = job.error {
            lines.append("\(job.kind) of \(job.pageId) on \(job.device) failed: \(error)")
        } else if lines.isEmpty {
            lines.append("\(job.kind) of \(job.pageId) on \(job.device) finished without a report")
        }
        return lines
    }

    /// An as-found backup: a line per page, what it found.
    static func asFound(_ report: AsFoundReport) -> [String] {
        ["as found on \(report.device) (\(report.requests) requests):"]
            + report.pages.map { page in
                switch page.outcome {
                case .first, .changed:
                    return "  \(page.pageId): \(page.outcome.rawValue), record \(page.number ?? 0): \(page.summary ?? "")"
                case .unchanged:
                    return "  \(page.pageId): unchanged since record \(page.number ?? 0): nothing archived"
                case .failed:
                    return "  \(page.pageId): failed: \(page.error ?? "")"
                }
            }
    }

    /// The per-register table of a replay: expected and actual, the value before when one was read, and any note.
    static func registerTable(_ results: [RegisterResult], planned: Bool, factory: [String: RegisterValue] = [:]) -> [String] {
        /// A value that is the register's factory default says so.
        func shown(_ v: RegisterValue?, _ registerId: String) -> String {
            guard let v, let f = factory[registerId], Self.same(v, f) else { return value(v, registerId) }
            return value(v, registerId) + " (factory)"
        }
        let hasBefore = planned || results.contains { $0.before != nil }
        let hasNote = results.contains { $0.message != nil || $0.exceptionCode != nil }
        // A page with overrides or tolerances on this device: where each expected value comes from, and its band.
        let hasSource = results.contains { $0.origin != nil }
        var columns: [Table.Column] = [.init("REGISTER"), .init("ADDRESS", .right), .init("STATUS")]
        if hasBefore { columns.append(.init("BEFORE")) }
        columns.append(.init("EXPECTED"))
        if hasSource { columns.append(.init("SOURCE")) }
        if !planned { columns.append(.init("ACTUAL")) }
        if hasNote { columns.append(.init("NOTE")) }
        var table = Table(columns)
        for result in results {
            var row = [result.registerId, String(result.address), statusText(result.status)]
            if hasBefore {
                row.append(
                    result.beforeUnset == true
                        ? "(not set)" : shown(result.before ?? (planned ? result.actual : nil), result.registerId))
            }
            row.append(result.expectedUnset == true ? "(not set)" : shown(result.expected, result.registerId))
            if hasSource { row.append(sourceText(result.origin)) }
            if !planned { row.append(result.actualUnset == true ? "(not set)" : value(result.actual, result.registerId)) }
            if hasNote {
                let parts = [result.exceptionCode.map { "exception \($0)" }, result.message].compactMap { $0 }
                row.append(parts.isEmpty ? "-" : parts.joined(separator: ": "))
            }
            table.append(row)
        }
        return table.lines
    }

    /// `template`, `override device:m1`, `template ±0.1` (nil: the template's, exact).
    static func sourceText(_ origin: EntryOrigin?) -> String {
        guard let origin else { return "template" }
        return [origin.source.rawValue, origin.overrideFrom?.description, origin.tolerance?.description].compactMap { $0 }
            .joined(separator: " ")
    }

    /// Whether two values are the same number or the same text/bytes (a factory default of 5 is the
    /// unsigned 5 read back).
    static func same(_ a: RegisterValue, _ b: RegisterValue) -> Bool {
        if let x = a.number, let y = b.number { return x == y }
        return a == b
    }

    /// A register status as words (`notAttempted` → `not attempted`).
    static func statusText(_ status: RegisterStatus) -> String {
        status == .notAttempted ? "not attempted" : status.rawValue
    }

    /// A replay status as shown in the report's first line.
    static func statusText(_ status: ReplayStatus) -> String {
        switch status {
        case .succeeded: return "succeeded"
        case .failed: return "FAILED"
        case .refused: return "REFUSED (nothing written)"
        case .planned: return "planned (nothing written)"
        }
    }

    private static func skippedTable(_ skipped: [SkippedRegister]) -> [String] {
        var table = Table([.init("REGISTER"), .init("ADDRESS", .right), .init("REASON")])
        for register in skipped {
            let reason: String
            switch register.reason {
            case .unset: reason = "unset (still at its not-set default)"
            case .notCloned: reason = "not cloned (clone: false)"
            case .readOnly: reason = "read-only"
            }
            table.append([register.registerId, String(register.address), reason])
        }
        return table.lines
    }

    /// `v3` for a local number, the id itself in a fleet (`line-7-3`).
    static func versionLabel(_ report: ReplayReport) -> String {
        let id = report.templateVersionId ?? String(report.templateVersion)
        return id.allSatisfy(\.isNumber) ? "v\(id)" : id
    }

    /// "1 entry", "3 entries".
    static func plural(_ count: Int, _ singular: String, _ pluralForm: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : pluralForm ?? singular + "s")"
    }
}
