import Foundation
import LastsetCore

extension TextView {
    /// "v3 by uid:1000(ops) at 2026-…" for an applied version.
    static func applied(_ a: AppliedSummary?) -> String {
        guard let a else { return "never" }
        return "v\(a.versionId) (\(time(a.appliedAt)) by \(a.appliedBy))"
    }

    /// `lastset conformance`: one row per device page, then each drifted register.
    static func conformance(_ list: [PageConformance]) -> [String] {
        guard !list.isEmpty else { return ["no device has that page"] }
        var table = Table([.init("DEVICE"), .init("PAGE"), .init("STATE"), .init("APPLIED"), .init("SINCE"), .init("DETAIL")])
        for c in list {
            let detail: String
            switch c.state {
            case .conforms: detail = "checked \(time(c.checkedAt))"
            case .drifted: detail = plural(c.drifted.count, "register") + " changed"
            case .unknown: detail = c.reason ?? "-"
            }
            table.append([
                c.device, c.pageId, c.state.rawValue, applied(c.applied), c.state == .drifted ? time(c.since) : "-", detail,
            ])
        }
        var lines = table.lines
        let drifted = list.filter { $0.state == .drifted }
        if !drifted.isEmpty {
            lines.append("")
            var regs = Table([
                .init("DEVICE"), .init("PAGE"), .init("REGISTER"), .init("ADDRESS", .right), .init("EXPECTED"), .init("LIVE"),
            ])
            for c in drifted {
                for r in c.drifted {
                    regs.append([
                        c.device, c.pageId, r.registerId, String(r.address), value(r.expected, r.registerId),
                        r.live.map { value($0, r.registerId) } ?? "0x" + r.liveData,
                    ])
                }
            }
            lines += regs.lines
        }
        return lines
    }

    /// A standing in words: `latest`, `never-applied` / `never applied`, `partially-written` / `partially written`.
    static func standingWords(_ s: RolloutStanding, separator: String) -> String {
        switch s {
        case .neverApplied: return "never" + separator + "applied"
        case .partiallyWritten: return "partially" + separator + "written"
        case .latest, .older, .equivalent, .drifted, .unverified: return s.rawValue
        }
    }

    /// `lastset rollout PAGE`.
    static func rollout(_ r: Rollout) -> [String] {
        var lines = ["page \(r.pageId): latest \(r.latestVersion.map { "v\($0)" } ?? "none archived")"]
        guard !r.devices.isEmpty else { return lines + ["no configured device has this page"] }
        var table = Table([.init("DEVICE"), .init("STANDING"), .init("APPLIED"), .init("CONFORMANCE")])
        for d in r.devices {
            table.append([
                d.device, standingWords(d.standing, separator: "-"), applied(d.conformance.applied),
                d.conformance.state.rawValue + (d.conformance.reason.map { " (\($0))" } ?? ""),
            ])
        }
        lines += table.lines
        let counts = RolloutStanding.allCases.map {
            "\(r.counts[$0.rawValue] ?? 0) \(standingWords($0, separator: " "))"
        }
        lines.append(counts.joined(separator: ", "))
        return lines
    }
}

extension TextView {
    /// `lastset diff PAGE --version A --against B`.
    static func templateDiff(_ d: TemplateDiff) -> [String] {
        var lines = [
            "\(d.pageId): version \(d.version) against version \(d.against): \(d.added.count) added, \(d.removed.count) removed, \(d.changed.count) changed, \(d.unchanged) unchanged"
        ]
        if !d.samePageHash { lines.append("captured against different page definitions") }
        if !d.sameIdentity { lines.append("source identity values differ") }
        guard !(d.added.isEmpty && d.removed.isEmpty && d.changed.isEmpty) else { return lines }
        var table = Table([
            .init("REGISTER"), .init("ADDRESS", .right), .init("CHANGE"), .init("v" + d.against), .init("v" + d.version),
        ])
        for c in d.changed {
            table.append([
                c.registerId, String(c.address), "changed", value(c.from.value, c.registerId), value(c.to.value, c.registerId),
            ])
        }
        for e in d.added { table.append([e.registerId, String(e.address), "added", "-", value(e.value, e.registerId)]) }
        for e in d.removed { table.append([e.registerId, String(e.address), "removed", value(e.value, e.registerId), "-"]) }
        return lines + table.lines
    }

    /// A whole-machine apply: a line per page, then each page's own report.
    static func applyAll(_ r: ApplyAllReport) -> [String] {
        let done = r.pages.filter { $0.status == (r.dryRun ? .planned : .succeeded) }.count
        var lines = [
            "\(r.dryRun ? "dry run of every page" : "apply of every page") on \(r.device): \(done) of \(plural(r.pages.count, "page")) \(r.dryRun ? "planned" : "succeeded")"
                + (r.stoppedAt.map { "; stopped at page \($0)" } ?? "")
        ]
        var table = Table([.init("PAGE"), .init("VERSION"), .init("RESULT"), .init("DETAIL")])
        for p in r.pages {
            // A restore's page that went as planned says why its version; one that did not, why not.
            let why = p.status == (r.dryRun ? .planned : .succeeded) ? p.restore?.explanation : nil
            let detail = p.error ?? why ?? p.report?.reason ?? p.report?.stoppedAt.map { "stopped \($0)" } ?? "-"
            table.append([p.pageId, p.versionId.map { "v\($0)" } ?? "-", p.status.rawValue, detail])
        }
        lines += table.lines
        for p in r.pages {
            guard let report = p.report else { continue }
            lines.append("")
            lines += replay(report)
        }
        return lines
    }
}

extension TextView {
    /// One audit record in full (`lastset audit --job ID`): who, what, result, then every register's before,
    /// what was written, what was read back and what the machine holds after.
    static func auditRecord(_ r: AuditRecord) -> [String] {
        let version: String = r.templateVersionId ?? r.templateVersion.map(String.init) ?? "-"
        var rows: [(String, String)] = [
            ("time", time(r.time)), ("kind", r.kind.rawValue), ("result", r.result.rawValue), ("who", r.who),
            ("page", r.pageId), ("device", "\(r.device) (\(r.endpoint), unit \(r.unit))"), ("version", version),
            ("job", r.job ?? "-"),
        ]
        if let m = r.message { rows.append(("message", m)) }
        if let f = r.writeFrames { rows.append(("write frames", String(f))) }
        if let rb = r.rollback { rows.append(("rollback", rb.rawValue)) }
        for (name, steps) in [("beforeWrite", r.beforeWrite ?? []), ("afterWrite", r.afterWrite ?? [])] {
            for (index, step) in steps.enumerated() {
                rows.append(
                    ("\(name)[\(index)]", "\(step.address) := \(step.value) \(statusText(step.status))" + (step.message.map { " (\($0))" } ?? "")))
            }
        }
        let lines = CommandSpec.helpRows(rows)
        guard !r.registers.isEmpty else { return lines }
        var table = Table([
            .init("REGISTER"), .init("STATUS"), .init("BEFORE"), .init("WRITTEN"), .init("READ BACK"), .init("AFTER"),
            .init("NOTE"),
        ])
        for reg in r.registers {
            table.append([
                reg.registerId, reg.status.rawValue, value(reg.before, reg.registerId), value(reg.written, reg.registerId),
                value(reg.readBack, reg.registerId), value(reg.after, reg.registerId),
                reg.rollback.map { "rolled back to \(value($0.restored, reg.registerId)): \($0.status.rawValue)" }
                    ?? reg.message ?? "-",
            ])
        }
        return lines + [""] + table.lines
    }
}

extension TextView {
    /// A number from the config as written: `900`, `-15.5`.
    private static func number(_ d: Double) -> String {
        d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : String(d)
    }

    /// `lastset pages PAGE`: the page's definition — identity, steps, and every register in write order.
    static func pageDefinition(_ p: PageDefinition) -> [String] {
        var lines = [
            "page \(p.id)" + (p.title.map { " (\($0))" } ?? "") + ": \(plural(p.registers.count, "register")), in write order"
        ]
        if let d = p.description { lines.append(d) }
        if let style = p.unsetStyle { lines.append("not set: \(style.rawValue)") }
        if let identity = p.identity, !identity.isEmpty {
            lines.append(
                "identity (must match before a replay): "
                    + identity.map { "\($0.registerId) at \($0.address) (\($0.type.description))" }.joined(separator: ", "))
        }
        if let steps = p.beforeWrite, !steps.isEmpty {
            lines.append("before writing: " + steps.map { "write \($0.value) to \($0.address)" }.joined(separator: ", "))
        }
        if let steps = p.afterWrite, !steps.isEmpty {
            lines.append("after writing: " + steps.map { "write \($0.value) to \($0.address)" }.joined(separator: ", "))
        }
        var table = Table([
            .init("REGISTER"), .init("ADDRESS", .right), .init("TYPE"), .init("ACCESS"), .init("CLONE"), .init("RANGE"),
            .init("SCALE"), .init("UNIT"), .init("NAME"),
        ])
        for r in p.registers {
            var range = "-"
            if let values = r.enum {
                range = "one of " + values.map(\.description).joined(separator: ",")
            } else if r.min != nil || r.max != nil {
                range = (r.min?.description ?? "") + "…" + (r.max?.description ?? "")
            }
            table.append([
                r.registerId, String(r.address), r.type.description, r.isWritable ? "rw" : "ro", r.isCloned ? "yes" : "no",
                range, r.scale.map(number) ?? "-", r.unit ?? "-", r.name ?? "-",
            ])
        }
        return lines + [""] + table.lines
    }
}
