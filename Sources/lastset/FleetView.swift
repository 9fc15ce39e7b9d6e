import Foundation
import LastsetCore

/// Human text for the fleet: `lastset sync` and the fleet lines of `lastset status`.
enum FleetView {
    /// `lastset sync`: what came in, what went out, what was refused.
    static func sync(_ r: SyncReport) -> [String] {
        var lines: [String] = []
        switch r.result {
        case .ok: lines.append("sync ok")
        case .offline: lines.append("sync OFFLINE: \(r.message ?? "the hub did not answer"); local templates keep working")
        case .refused: lines.append("sync REFUSED: \(r.message ?? "the hub holds something this host must not use")")
        case .failed: lines.append("sync FAILED: \(r.message ?? "")")
        }
        lines.append(
            "in:  \(TextView.plural(r.commitsIn, "commit")), \(TextView.plural(r.templatesIn.count, "template version")), \(TextView.plural(r.auditRecordsIn, "audit record"))"
        )
        lines += r.templatesIn.map { "     + \($0)" }
        lines.append(
            "out: \(TextView.plural(r.commitsOut, "commit")), \(TextView.plural(r.templatesOut.count, "template version")), \(TextView.plural(r.auditRecordsOut, "audit record"))"
        )
        lines += r.templatesOut.map { "     + \($0)" }
        for refusal in r.refused { lines.append("refused: \(refusal)") }
        for line in r.notApplicable ?? [] { lines.append("kept, not applicable here: \(line)") }
        for line in r.deleted ?? [] { lines.append("deleted here (another host's tombstone): \(line)") }
        for line in r.promoted ?? [] { lines.append("promoted on another host: \(line)") }
        if let ahead = r.ahead, let behind = r.behind { lines.append("ahead \(ahead), behind \(behind)") }
        return lines
    }

    /// The fleet part of `lastset status`.
    static func status(_ f: FleetStatus) -> [String] {
        var rows: [(String, String)] = [
            ("fleet host", f.host),
            ("hub", "\(f.remote) (branch \(f.branch), every \(f.interval)\(f.requireSigned ? ", signed commits only" : ""))"),
        ]
        if let last = f.lastSync {
            rows.append(
                (
                    "last sync",
                    "\(TextView.time(last.finishedAt)): \(last.result.rawValue)" + (last.message.map { " (\($0))" } ?? "")
                ))
        } else {
            rows.append(("last sync", "none yet"))
        }
        rows.append(("last ok sync", f.lastSuccessAt.map { TextView.time($0) } ?? "never"))
        if let ahead = f.ahead, let behind = f.behind { rows.append(("ahead/behind", "\(ahead) / \(behind)")) }
        for d in f.differingPages ?? [] {
            rows.append(
                (
                    "page differs",
                    "\(d.pageId) from \(d.host)'s (its latest, \(d.version)\(d.fleetLatest == true ? ", the fleet's latest" : ""))"
                        + Self.differences(d)
                ))
        }
        return CommandSpec.helpRows(rows).map { String($0.dropFirst(2)) }
    }

    /// `lastset fleet doctor`.
    static func doctor(_ d: FleetDiagnosis) -> [String] {
        var lines = ["fleet \(d.verdict.rawValue.uppercased()): host \(d.host), hub \(d.remote) (branch \(d.branch))"]
        for f in d.repository { lines.append("  repository \(f.check.rawValue): \(f.ok ? "ok" : "FAILED") (\(f.detail))") }
        if d.hub.answered {
            var hub = "  hub: answers; branch " + (d.hub.head.map { "at \($0)" } ?? "has no commit yet")
            hub += ", \(TextView.plural(d.hub.incoming, "commit")) not merged here"
            if let ahead = d.hub.ahead { hub += ", \(TextView.plural(ahead, "commit")) of this host not on the hub" }
            lines.append(hub)
        } else {
            lines.append("  hub: DOES NOT ANSWER (\(d.hub.message ?? "no reason given"))")
        }
        for p in d.problems { lines.append("  problem: \(p)") }
        switch d.verdict {
        case .healthy: lines.append("nothing to repair")
        case .hubOffline: lines.append("nothing to repair from here: check the hub's address, the network and the keys")
        case .hubRefused, .repositoryBroken:
            if d.repairs.isEmpty {
                lines.append("no repair is safe from this host: repair the hub from a host whose repository is sound first")
            }
            for way in d.repairs {
                switch way {
                case .quarantine:
                    lines.append(
                        "way out: lastset fleet repair quarantine --head \(d.hub.head ?? "") --reason \"…\" (keeps the bad branch aside on the hub)"
                    )
                case .reclone:
                    lines.append("way out: lastset fleet repair reclone --reason \"…\" (moves this repository aside, clones afresh)")
                }
            }
        }
        return lines
    }

    /// `lastset fleet repair`.
    static func repair(_ r: FleetRepairReport) -> [String] {
        var lines = ["repair \(r.way.rawValue) \(r.result.rawValue.uppercased()): \(r.message)"]
        if let branch = r.quarantineBranch { lines.append("  quarantined as \(branch) on the hub") }
        for c in r.quarantined ?? [] { lines.append("  taken off the branch: \(c)") }
        if let aside = r.movedAside { lines.append("  old repository: \(aside)") }
        for p in r.problems { lines.append("  problem: \(p)") }
        for note in r.unchecked ?? [] { lines.append("  accepted unchecked: \(note)") }
        if let first = r.sync { lines += Self.sync(first).map { "  " + $0 } }
        return lines
    }

    /// `lastset fleet page PAGE`.
    static func page(_ v: FleetPageView) -> [String] {
        var lines: [String] = []
        if let taken = v.taken {
            lines.append(
                "page \(v.pageId): the fleet's definition taken from \(taken.fromVersion) by \(taken.takenBy) at \(TextView.time(taken.takenAt)) is in force here, not the config's (\(taken.replacedHash))"
            )
        }
        guard let version = v.fleetVersion, let fleetHash = v.fleetHash else {
            return lines + ["page \(v.pageId): no version in the fleet yet (\(v.pageHash) here)"]
        }
        if v.same {
            return lines + ["page \(v.pageId): the same definition as the fleet's (\(v.pageHash), its latest \(version))"]
        }
        lines.append("page \(v.pageId) DIFFERS from the fleet's: here \(v.pageHash), the fleet's latest \(version) was captured against \(fleetHash)")
        guard let differences = v.differences, let definition = v.definition else {
            return lines + ["  that definition was never published (a version from before definitions were published): nothing to compare or take"]
        }
        lines.append("  published by \(definition.host)")
        for r in differences.registers { lines.append("  register \(r)") }
        for f in differences.page { lines.append("  page \(f.field): \(f.here ?? "none") → \(f.there ?? "none")") }
        lines.append(
            "another host's version is written here only under the definition it was captured against: lastset fleet page \(v.pageId) --take --version \(version) --reason \"…\"")
        return lines
    }

    /// `: heating.hysteresis: max 40 → 50; heating.label: only in the fleet's` (or why it is not applicable, when the
    /// definition it was captured against was never published).
    static func differences(_ d: FleetPageDifference) -> String {
        let parts = (d.registers ?? []).map(\.description) + (d.pageFields ?? []).map { "page \($0.field): \($0.here ?? "none") → \($0.there ?? "none")" }
        if !parts.isEmpty { return ": " + parts.joined(separator: "; ") }
        return d.reason.map { ": \($0)" } ?? ""
    }
}
