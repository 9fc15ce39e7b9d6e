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
                    "\(d.pageId) from \(d.host)'s (its latest, \(d.version), "
                        + (d.applicable ? "still applies here)" : "\(d.reason ?? "not applicable here"))")
                ))
        }
        return CommandSpec.helpRows(rows).map { String($0.dropFirst(2)) }
    }
}
