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
                        c.device, c.pageId, r.registerId, String(r.address), value(r.expected),
                        r.live.map(value) ?? "0x" + r.liveData,
                    ])
                }
            }
            lines += regs.lines
        }
        return lines
    }

    /// `lastset rollout PAGE`.
    static func rollout(_ r: Rollout) -> [String] {
        var lines = ["page \(r.pageId): latest \(r.latestVersion.map { "v\($0)" } ?? "none archived")"]
        guard !r.devices.isEmpty else { return lines + ["no configured device has this page"] }
        var table = Table([.init("DEVICE"), .init("STANDING"), .init("APPLIED"), .init("CONFORMANCE")])
        for d in r.devices {
            table.append([
                d.device, d.standing == .neverApplied ? "never-applied" : d.standing.rawValue, applied(d.conformance.applied),
                d.conformance.state.rawValue + (d.conformance.reason.map { " (\($0))" } ?? ""),
            ])
        }
        lines += table.lines
        let counts = RolloutStanding.allCases.map {
            "\(r.counts[$0.rawValue] ?? 0) \($0 == .neverApplied ? "never applied" : $0.rawValue)"
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
        for c in d.changed { table.append([c.registerId, String(c.address), "changed", value(c.from.value), value(c.to.value)]) }
        for e in d.added { table.append([e.registerId, String(e.address), "added", "-", value(e.value)]) }
        for e in d.removed { table.append([e.registerId, String(e.address), "removed", value(e.value), "-"]) }
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
            let detail = p.error ?? p.report?.reason ?? p.report?.stoppedAt.map { "stopped \($0)" } ?? "-"
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
