import Foundation
import LastsetCore

extension Engine {
    /// At start: when the device state is empty while the audit log records replays (a data directory of the
    /// release before the database whose state files were lost, or a table an administrator emptied), or a row is
    /// unreadable, rebuilds it from the audit log: each replay and dry run record's effect (`ReplayPageEffect`, the
    /// decision a replay makes as it ends), newest first — the version is the last success's unless a failed
    /// replay partially wrote the page since, the mark the last interrupted or partially written replay's unless a
    /// success or a dry run that read every entry came since. In the database a replay's state commits with its
    /// outcome, so nothing else can make them disagree. Returns a line for the log when it rebuilt something.
    public func loadDeviceState() async -> String? {
        let problem = await deviceState.loadProblem
        let wasEmpty = await deviceState.wasEmpty
        guard problem != nil || wasEmpty else { return nil }
        // Newest first: the first record that settles a device page's version (or its mark) wins.
        var applied: [String: AuditRecord] = [:]
        var marks: [String: UnverifiedMark] = [:]
        var versionSettled = Set<String>()
        var markSettled = Set<String>()
        var pairs: [String: (String, String)] = [:]
        let bad: Int
        do {
            bad = try await audit.scan(kinds: [.replay, .dryRun]) { r in
            guard let outcome = ReplayOutcome(record: r) else { return true }
            let key = r.device + "\u{0}" + r.pageId
            pairs[key] = (r.device, r.pageId)
            let effect = ReplayPageEffect.of(outcome)
            switch effect {
            case .applied, .partiallyWritten:
                if versionSettled.insert(key).inserted, effect == .applied { applied[key] = r }
            case .keep, .clearsMark, .interrupted:
                break
            }
            if effect != .keep, markSettled.insert(key).inserted {
                switch effect.mark {
                case .interrupted?:
                    marks[key] = UnverifiedMark(
                        device: r.device, pageId: r.pageId, since: r.time, job: r.job ?? "", reason: .interrupted,
                        message: r.message ?? "interrupted")
                case .failed?: marks[key] = UnverifiedMark.failedReplay(r)
                case nil: break
                }
            }
            return true
            }
        } catch {
            // Nothing rebuilt: the next start tries again.
            return "device state: cannot rebuild it from the audit log: \(error)"
        }
        var states: [DevicePageState] = []
        var missing: [String] = []
        for (key, (device, pageId)) in pairs.sorted(by: { $0.key < $1.key }) {
            var s = DevicePageState(device: device, pageId: pageId)
            if let r = applied[key], let version = r.templateVersion {
                // The values come from the archive: the audit record keeps decoded values, the template the bytes.
                let ref = r.templateVersionId.flatMap(TemplateVersionRef.parse) ?? .number(version)
                if let template = try? await archive.load(pageId: pageId, version: ref) {
                    // Only the entries the replay wrote (a replay leaves out entries whose register left the page).
                    let written = Set(r.registers.lazy.filter { $0.written != nil }.map(\.registerId))
                    s.applied = AppliedTemplate(
                        template: template,
                        entries: template.entries.filter { written.contains($0.registerId) }.map(RecordedValue.init),
                        appliedAt: r.time, appliedBy: r.who, job: r.job)
                } else {
                    s.applied = AppliedTemplate(
                        version: version, versionId: r.templateVersionId, pageHash: r.pageHash, appliedAt: r.time,
                        appliedBy: r.who, job: r.job, entries: [])
                    missing.append("\(device)/\(pageId) v\(version)")
                }
            }
            if let m = marks[key] { s.setMark(m) }
            if s.applied != nil || s.unverified != nil { states.append(s) }
        }
        guard !states.isEmpty || problem != nil else { return nil }
        do {
            try await deviceState.replaceAll(states)
        } catch {
            return "device state: cannot commit the state rebuilt from the audit log: \(error)"
        }
        var line =
            (problem ?? "device state was missing")
            + ": \(states.count) device page\(states.count == 1 ? "" : "s") rebuilt from the audit log"
        if bad > 0 { line += " (\(bad) unreadable audit records skipped)" }
        if !missing.isEmpty {
            line += "; no longer archived, so conformance is unknown: " + missing.joined(separator: ", ")
        }
        return line
    }
}
