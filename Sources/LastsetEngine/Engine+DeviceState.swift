import Foundation
import LastsetCore

extension Engine {
    /// At start: when `device-state/` is missing or a file in it unreadable, rebuilds it from the audit log (the last
    /// successful replay of each device page, and interrupted replays not followed by a successful replay
    /// or a dry run). Returns a line for the log when it rebuilt something, nil otherwise.
    public func loadDeviceState() async -> String? {
        let problem = await deviceState.loadProblem
        guard !(await deviceState.loadedFromFile) else { return nil }
        // Newest first: the first record that settles a device page wins.
        var applied: [String: AuditRecord] = [:]
        var unverified: [String: AuditRecord] = [:]
        var settled = Set<String>()
        var pairs: [String: (String, String)] = [:]
        let bad = await audit.scan { r in
            guard r.kind == .replay || r.kind == .dryRun else { return true }
            let key = r.device + "\u{0}" + r.pageId
            pairs[key] = (r.device, r.pageId)
            switch (r.kind, r.result) {
            case (.replay, .succeeded):
                if applied[key] == nil { applied[key] = r }
                settled.insert(key)
            case (.dryRun, .planned):
                settled.insert(key)
            case (.replay, .interrupted):
                if !settled.contains(key), unverified[key] == nil { unverified[key] = r }
            default:
                break
            }
            return true
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
                        entries: template.entries.filter { written.contains($0.registerId) }.map(ExpectedValue.init),
                        appliedAt: r.time, appliedBy: r.who, job: r.job)
                } else {
                    s.applied = AppliedTemplate(
                        version: version, versionId: r.templateVersionId, pageHash: r.pageHash, appliedAt: r.time,
                        appliedBy: r.who, job: r.job, entries: [])
                    missing.append("\(device)/\(pageId) v\(version)")
                }
            }
            if let r = unverified[key] {
                s.unverified = UnverifiedMark(
                    device: device, pageId: pageId, since: r.time, job: r.job ?? "", message: r.message ?? "interrupted")
            }
            if s.applied != nil || s.unverified != nil { states.append(s) }
        }
        do {
            // Written even when empty: the next start reads the file instead of walking the log again.
            try await deviceState.replaceAll(states)
        } catch {
            return "device state: cannot write the rebuilt \(DeviceStateStore.directoryName): \(error)"
        }
        guard !states.isEmpty || problem != nil else { return nil }
        var line =
            (problem ?? "\(DeviceStateStore.directoryName) was missing")
            + ": \(states.count) device page\(states.count == 1 ? "" : "s") rebuilt from the audit log"
        if bad > 0 { line += " (\(bad) unreadable audit lines skipped)" }
        if !missing.isEmpty {
            line += "; no longer archived, so conformance is unknown: " + missing.joined(separator: ", ")
        }
        return line
    }
}
