import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats

/// `lastset fleet repair`: the safe ways out of a blocked fleet, each audited (kind `fleet-repair`).
extension Fleet {
    /// Quarantines the hub's branch when it holds commits a fetch refuses: in one atomic push, its head is kept as the
    /// hub branch `lastset-quarantine/<host>-<time>` and the branch is reset to this host's HEAD — only if the branch
    /// is still the commit just checked (and `expectedHead`, the one the operator saw, when given). Other hosts'
    /// good commits taken off the branch come back with their next push (they still have them); the quarantined
    /// branch keeps everything for inspection.
    public func quarantine(reason: String, expectedHead: String?, who: String) async -> FleetRepairReport {
        state.withLock { $0.busy = true }
        defer { state.withLock { $0.busy = false } }
        var report = FleetRepairReport(way: .quarantine, result: .refused, message: "")
        do throws(GitError) {
            try quarantineSteps(expectedHead: expectedHead, into: &report)
        } catch {
            report.result = .failed
            report.message = "\(error)"
        }
        await auditRepair(report, reason: reason, who: who)
        return report
    }

    private func quarantineSteps(expectedHead: String?, into report: inout FleetRepairReport) throws(GitError) {
        guard let head = try revParse("HEAD") else {
            report.message = "this host has no commit to put on the hub's branch; nothing changed"
            return
        }
        var fetched = SyncReport()
        guard try fetch(timeout: settings.networkTimeout, into: &fetched) else {
            report.message = "the hub did not answer (\(fetched.message ?? "")); nothing changed"
            return
        }
        guard let remote = try revParse(remoteRef) else {
            report.message = "the hub's branch \(settings.branch) has no commit: nothing to quarantine"
            return
        }
        report.hubHeadBefore = remote
        if let expectedHead, !Self.sameCommit(expectedHead, remote) {
            report.message =
                "the hub's branch is now \(remote.prefix(12)), not \(expectedHead) as checked; nothing changed (run lastset fleet doctor again)"
            return
        }
        let check = try checkIncoming(head: head, remote: remote)
        guard !check.refusals.isEmpty else {
            report.message = "the hub's branch passes every check of a fetch: nothing to quarantine; nothing changed"
            return
        }
        report.problems = try locate(check.refusals, in: check.range)
        let branch = "lastset-quarantine/\(settings.host)-\(Self.stamp(Date()))"
        report.quarantined = try git.run(["log", "--format=%H %an: %s"] + check.range, timeout: settings.localTimeout).text
            .split(separator: "\n").map(String.init)
        let pushed = try git.run(
            [
                "push", "--porcelain", "--atomic", "--force-with-lease=refs/heads/\(settings.branch):\(remote)",
                "--force-with-lease=refs/heads/\(branch):", "origin", "\(remote):refs/heads/\(branch)",
                "\(head):refs/heads/\(settings.branch)",
            ], timeout: settings.networkTimeout, check: false)
        guard pushed.status == 0 else {
            let text = pushed.text + pushed.message
            report.message =
                text.contains("stale info") || text.contains("[rejected]")
                ? "the hub's branch moved since it was checked; nothing changed (run lastset fleet doctor again)"
                : "the hub refused the push; nothing changed: \(Self.lastLines(text))"
            return
        }
        try git.run(["update-ref", remoteRef, head], timeout: settings.localTimeout)
        report.result = .done
        report.quarantineBranch = branch
        report.hubHeadAfter = head
        report.message =
            "quarantined \(check.commits.count) commit\(check.commits.count == 1 ? "" : "s") of the hub's branch \(settings.branch) (head \(remote.prefix(12))) as \(branch) and reset \(settings.branch) to \(settings.host)'s \(head.prefix(12)); other hosts' good commits come back with their next sync"
    }

    /// Re-clones this host's repository from the hub: the repository is moved aside (`fleet.aside-<time>`, kept), a
    /// fresh one fetches the hub's branch and checks all of it as a fetch does — this host's own files accepted only
    /// when they are what this host wrote (`FleetOwnFile`) — then a sync archives what it lacks and pushes what the hub
    /// lacks. When anything is refused or fails, the old repository is put back as it was.
    public func reclone(reason: String, who: String) async -> FleetRepairReport {
        state.withLock { $0.busy = true }
        var report = FleetRepairReport(way: .reclone, result: .refused, message: "")
        let aside = tree.deletingLastPathComponent().appendingPathComponent("fleet.aside-\(Self.stamp(Date()))")
        do {
            try FileManager.default.moveItem(at: tree, to: aside)
        } catch {
            report.result = .failed
            report.message = "cannot move \(tree.path) aside: \(error.localizedDescription); nothing changed"
            state.withLock { $0.busy = false }
            await auditRepair(report, reason: reason, who: who)
            return report
        }
        let ready = await freshClone(oldRepository: aside, into: &report)
        if !ready { restore(aside, into: &report) }
        state.withLock { $0.busy = false }
        if ready {
            report.movedAside = aside.path
            let sync = await sync()
            report.sync = sync
            report.result = .done
            report.hubHeadAfter = try? revParse(remoteRef)
            report.message =
                "re-cloned from \(settings.remote) (\(report.hubHeadBefore.map { "branch at \($0.prefix(12))" } ?? "no commit yet")); the old repository is kept at \(aside.path); the first sync: \(sync.result.rawValue)\(sync.message.map { " (\($0))" } ?? "")"
        }
        await auditRepair(report, reason: reason, who: who)
        return report
    }

    /// Makes the fresh repository and takes the hub's branch when all of it passes the checks; false (the report says
    /// why) when it does not.
    private func freshClone(oldRepository: URL, into report: inout FleetRepairReport) async -> Bool {
        do {
            try prepareRepository()
            var fetched = SyncReport()
            guard try fetch(timeout: settings.networkTimeout, into: &fetched) else {
                report.message = "the hub did not answer (\(fetched.message ?? "")); the old repository is back"
                return false
            }
            guard let remote = try revParse(remoteRef) else { return true }  // an empty hub: the sync fills it
            report.hubHeadBefore = remote
            let check = try checkIncoming(head: nil, remote: remote, ownFiles: true)
            var refusals = check.refusals
            let (own, notes) = await judgeOwnFiles(check.changes.ownChanges, oldRepository: oldRepository)
            refusals += own
            guard refusals.isEmpty else {
                report.problems = try locate(refusals, in: check.range)
                report.message =
                    "what the hub holds is refused (\(refusals.count) problem\(refusals.count == 1 ? "" : "s")); the old repository is back"
                return false
            }
            report.problems = []
            if !notes.isEmpty { report.unchecked = notes }
            try git.run(["reset", "-q", "--hard", remote], timeout: settings.localTimeout)
            return true
        } catch {
            report.result = .failed
            report.message = "\(error); the old repository is back"
            return false
        }
    }

    /// Puts the old repository back in place of a fresh one that was not taken.
    private func restore(_ aside: URL, into report: inout FleetRepairReport) {
        do {
            if FileManager.default.fileExists(atPath: tree.path) { try FileManager.default.removeItem(at: tree) }
            try FileManager.default.moveItem(at: aside, to: tree)
            try configure()
        } catch {
            report.result = .failed
            report.message += "; putting the old repository back failed (\(error.localizedDescription)): it is at \(aside.path)"
        }
    }

    /// This host's own files on the hub, each judged against what this host wrote: refusals, and notes of files
    /// accepted unchecked.
    private func judgeOwnFiles(_ changes: [(change: FleetChange, kind: FleetChange.Kind)], oldRepository: URL) async -> (
        [FleetRefusal], [String]
    ) {
        let blobs = (try? readBlobs(changes.map(\.change.newBlob))) ?? [:]
        let records = (try? await ownRecords()) ?? [:]
        var refusals: [FleetRefusal] = []
        var notes: [String] = []
        for (change, kind) in changes {
            guard let hub = blobs[change.newBlob] else {
                refusals.append(FleetRefusal(path: change.path, rule: .missingObject, reason: "blob missing from the fetch"))
                continue
            }
            var evidence: [(Data, FleetOwnFile.Source)] = []
            var neverMade = false
            switch kind {
            case .template(let page, let fileName, let version):
                if let data = try? await archive.fileData(pageId: page, fileName: fileName) {
                    evidence.append((data, .archive))
                } else if let highest = try? await archive.highestNumber(pageId: page), version.number > highest {
                    neverMade = true
                }
            case .record:
                if let data = records[change.path] { evidence.append((data, .auditLog)) }
            case .definition(let page, let fileName, _):
                // A definition proves itself: its content must hash to its name, as any host's must.
                if case .failure(let refusal) = FleetPageDefinition.decode(hub, pageId: page, fileName: fileName) {
                    refusals.append(refusal)
                }
                continue
            case .audit, .ignored:
                break
            }
            if let old = try? Data(contentsOf: oldRepository.appendingPathComponent(change.path)) {
                evidence.append((old, .oldRepository))
            }
            let isAudit = if case .audit = kind { true } else { false }
            switch FleetOwnFile.judge(path: change.path, hub: hub, evidence: evidence, appendOnly: isAudit, neverMade: neverMade) {
            case .matches: break
            case .unchecked(let note): notes.append(note)
            case .refused(let refusal): refusals.append(refusal)
            }
        }
        return (refusals, notes)
    }

    /// The files of this host's delete and promote records as its audit log makes them, by path.
    private func ownRecords() async throws(GitError) -> [String: Data] {
        var out: [String: Data] = [:]
        for record in try await recordsInAuditLog() {
            do {
                out[record.path] = try record.encoded()
            } catch {
                throw .failed(arguments: ["add"], status: -1, message: "cannot encode \(record.path): \(error)")
            }
        }
        return out
    }

    /// Audits a repair (kind `fleet-repair`): who asked, why, and what was done or why not.
    private func auditRepair(_ report: FleetRepairReport, reason: String, who: String) async {
        let result: AuditResult =
            switch report.result {
            case .done: .succeeded
            case .refused: .refused
            case .failed: .failed
            }
        let record = AuditRecord(
            time: Date(), kind: .fleetRepair, who: who, pageId: "", device: "", endpoint: "", unit: 0, identity: [],
            templateVersion: nil, pageHash: "", result: result, message: "\(report.way.rawValue): \(report.message): \(reason)",
            registers: [], job: UUID().uuidString)
        try? await audit.append(record)
    }

    /// Whether `given` (a full id, or an abbreviation of 7 or more hex digits) names `commit`.
    static func sameCommit(_ given: String, _ commit: String) -> Bool {
        given.count >= 7 && given.allSatisfy(\.isHexDigit) && commit.hasPrefix(given.lowercased())
    }

    /// `20261206T101500Z`: a time in a branch or directory name.
    static func stamp(_ date: Date) -> String {
        String(TimeText.iso8601(date).filter { $0 != "-" && $0 != ":" }.prefix(15)) + "Z"
    }
}
