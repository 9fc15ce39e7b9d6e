import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats

/// The sync's steps: fetch, check what came in, merge, adopt, push.
extension Fleet {
    /// Fetches the hub's branch; false (and the report says why) when the hub did not answer.
    func fetch(timeout: Duration, into report: inout SyncReport) throws(GitError) -> Bool {
        do {
            try git.run(
                ["fetch", "-q", "--no-tags", "--no-write-fetch-head", "origin", "+refs/heads/\(settings.branch):\(remoteRef)"],
                timeout: timeout)
            return true
        } catch {
            if case .failed(_, _, let message) = error, message.contains("couldn't find remote ref") {
                return true  // A hub with no commits yet: the push creates the branch.
            }
            report.result = .offline
            report.message = "hub \(settings.remote) not reachable: \(error)"
            return false
        }
    }

    func revParse(_ ref: String) throws(GitError) -> String? {
        let out = try git.run(["rev-parse", "-q", "--verify", ref + "^{commit}"], timeout: settings.localTimeout, check: false)
        guard out.status == 0 else { return nil }
        return out.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Checks what the hub has that this host has not merged, and merges it when nothing is wrong.
    func integrate(into report: inout SyncReport) async throws(GitError) {
        guard let remote = try revParse(remoteRef) else { return }
        let head = try revParse("HEAD")
        let check = try checkIncoming(head: head, remote: remote)
        guard !check.commits.isEmpty else { return }
        guard check.refusals.isEmpty else {
            report.result = .refused
            report.refused = check.refusals
            report.message =
                "refused \(check.refusals.count) problem\(check.refusals.count == 1 ? "" : "s") in \(check.commits.count) commit\(check.commits.count == 1 ? "" : "s") from the hub; nothing of it merged, local templates keep working"
            return
        }
        try merge(remote, head: head, base: check.base, related: check.related)
        report.commitsIn += check.commits.count
        report.templatesIn += check.changes.templates
        report.auditRecordsIn += check.changes.auditLines
    }

    /// What the hub's `remote` brings over this host's `head`, checked by the rules of a fetch.
    struct IncomingCheck {
        /// The commits of `remote` that `head` lacks (newest first).
        var commits: [String]
        /// `head..remote` (all of `remote` without a `head`).
        var range: [String]
        /// The commit both share (git's empty tree when none), and whether there is one.
        var base: String
        var related: Bool
        /// The changes from `base` to `remote`, checked.
        var changes: IncomingChanges
        /// Every problem: signatures first (under `requireSigned`), then path by path.
        var refusals: [FleetRefusal]
    }

    /// Checks what `remote` brings over `head` as a fetch does (sync, doctor, quarantine, re-clone: one check).
    /// `ownFiles`: this host's own files are collected (`IncomingChanges.ownChanges`) instead of refused (re-clone).
    func checkIncoming(head: String?, remote: String, ownFiles: Bool = false) throws(GitError) -> IncomingCheck {
        let range = head.map { ["\($0)..\(remote)"] } ?? [remote]
        let commits = try git.run(["rev-list"] + range, timeout: settings.localTimeout).text.split(separator: "\n").map(
            String.init)
        guard !commits.isEmpty else {
            return IncomingCheck(
                commits: [], range: range, base: remote, related: true,
                changes: IncomingChanges(changes: [], localHost: settings.host), refusals: [])
        }
        let (base, related) = try mergeBase(head, remote)
        let changes = try incomingChanges(from: base, to: remote, ownFiles: ownFiles)
        let signatures = settings.requireSigned ? try signatureRefusals(range) : []
        return IncomingCheck(
            commits: commits, range: range, base: base, related: related, changes: changes,
            refusals: signatures + changes.refusals)
    }

    /// The commit `head` and `remote` share (git's empty tree when unrelated or when there is no `head`), and
    /// whether they share one.
    private func mergeBase(_ head: String?, _ remote: String) throws(GitError) -> (base: String, related: Bool) {
        guard let head else { return (Self.emptyTree, false) }
        let mb = try git.run(["merge-base", head, remote], timeout: settings.localTimeout, check: false)
        guard mb.status == 0 else { return (Self.emptyTree, false) }
        return (mb.text.trimmingCharacters(in: .whitespacesAndNewlines), true)
    }

    /// Under `requireSigned`: every incoming commit not signed by an allowed signer, with why.
    func signatureRefusals(_ range: [String]) throws(GitError) -> [FleetRefusal] {
        let log = try git.run(["log", "--format=%H %G? %GS"] + range, timeout: settings.localTimeout).text
        var refusals: [FleetRefusal] = []
        for line in log.split(separator: "\n") {
            let f = line.split(separator: " ", maxSplits: 2).map(String.init)
            guard f.count >= 2, f[1] != "G" else { continue }
            refusals.append(FleetRefusal(path: "commit \(f[0])", rule: .signature, reason: Self.signatureProblem(f[1])))
        }
        return refusals
    }

    /// Merges `remote` (checked) into `head`: a fast-forward, or a merge commit.
    private func merge(_ remote: String, head: String?, base: String, related: Bool) throws(GitError) {
        if head == nil {
            try git.run(["reset", "-q", "--hard", remote], timeout: settings.localTimeout)
        } else if base == head {
            try git.run(["merge", "-q", "--ff-only", remote], timeout: settings.localTimeout)
        } else {
            var args = ["merge", "-q", "--no-edit", "-m", "sync \(settings.host) with the hub"]
            if !related { args.append("--allow-unrelated-histories") }
            let merged = try git.run(args + [remote], timeout: settings.localTimeout, check: false)
            if merged.status != 0 {
                _ = try? git.run(["merge", "--abort"], timeout: settings.localTimeout, check: false)
                throw .failed(arguments: ["merge"], status: merged.status, message: merged.message)
            }
        }
    }

    /// What changed from `base` to `commit`, path by path, checked: every path by `FleetChange`'s rules, every new
    /// template's checksum and name, every new record's content and name, every audit file only appended to.
    func incomingChanges(from base: String, to commit: String, ownFiles: Bool = false) throws(GitError) -> IncomingChanges {
        let raw = try git.run(
            ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, commit], timeout: settings.localTimeout)
        guard let changes = FleetChange.parse(raw: raw.stdout) else {
            throw .failed(arguments: ["diff"], status: 0, message: "unexpected git diff output")
        }
        var check = IncomingChanges(changes: changes, localHost: settings.host, ownFiles: ownFiles)
        check.verify(blobs: try readBlobs(check.blobIds))
        return check
    }

    static func signatureProblem(_ code: String) -> String {
        switch code {
        case "N": return "not signed (requireSigned)"
        case "B": return "bad signature: the commit was changed after it was signed"
        case "U", "E": return "signed by a key that is not in the allowed signers (or it cannot be checked)"
        case "X", "Y": return "signature or key expired"
        case "R": return "signed by a revoked key"
        default: return "signature status \(code)"
        }
    }

    /// Reads blobs by id with one `git cat-file --batch`.
    func readBlobs(_ ids: [String]) throws(GitError) -> [String: Data] {
        let unique = Array(Set(ids.filter { $0 != String(repeating: "0", count: 40) }))
        guard !unique.isEmpty else { return [:] }
        let input = Data(unique.map { $0 + "\n" }.joined().utf8)
        let out = try git.run(["cat-file", "--batch"], timeout: settings.localTimeout, stdin: input).stdout
        var blobs: [String: Data] = [:]
        var i = out.startIndex
        while i < out.endIndex, let nl = out[i...].firstIndex(of: 0x0A) {
            let header = String(decoding: out[i..<nl], as: UTF8.self).split(separator: " ")
            i = out.index(after: nl)
            guard header.count == 3, let size = Int(header[2]), out.distance(from: i, to: out.endIndex) >= size else { continue }
            let end = out.index(i, offsetBy: size)
            blobs[String(header[0])] = Data(out[i..<end])
            i = end < out.endIndex ? out.index(after: end) : end
        }
        return blobs
    }

    /// Honours the delete and promote records and copies the templates of other hosts merged since the last
    /// adoption into the archive; records first, so a version deleted in the same fetch is never archived here.
    func adopt(into report: inout SyncReport) async throws(GitError) {
        guard let head = try revParse("HEAD") else { return }
        let from = try revParse(Self.adoptedRef) ?? Self.emptyTree
        guard from != head else { return }
        let raw = try git.run(
            ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, head, "--", FleetRecord.folder, "templates"],
            timeout: settings.localTimeout)
        var complete = true
        let added = (FleetChange.parse(raw: raw.stdout) ?? []).filter { $0.status == "A" }
        for change in added {
            guard case .success(.record(let page, let name)) = change.classify(localHost: settings.host) else { continue }
            do {
                try await honour(change.path, pageId: page, name: name, into: &report)
            } catch {
                complete = false
                report.refused.append(FleetRefusal(path: change.path, rule: .archive, reason: "\(error)"))
            }
        }
        for change in added {
            guard case .success(.template(let page, let name, _)) = change.classify(localHost: settings.host) else { continue }
            do {
                try await adoptTemplate(change.path, pageId: page, fileName: name, into: &report)
            } catch let error as ArchiveError {
                complete = false
                report.refused.append(FleetRefusal(path: change.path, rule: .archive, reason: error.description))
            } catch {
                complete = false
                report.refused.append(FleetRefusal(path: change.path, rule: .archive, reason: error.localizedDescription))
            }
        }
        if complete {
            try git.run(["update-ref", Self.adoptedRef, head], timeout: settings.localTimeout)
        } else {
            report.result = .refused
            report.message = "some templates or records from the hub could not be archived here (see refused)"
        }
    }

    /// Archives one template file of another host (kept whatever it holds: it is history), judged by the one
    /// admission decision against this host's page: a version captured against another register layout is not
    /// applicable here. A version deleted here (its deleted marker) is not archived again.
    private func adoptTemplate(_ path: String, pageId: String, fileName: String, into report: inout SyncReport) async throws {
        let data = try Data(contentsOf: tree.appendingPathComponent(path))
        let adoption = try await archive.adopt(data, fileName: fileName, pageId: pageId)
        guard case .added(let version) = adoption, let here = state.withLock({ $0.pages[pageId] }),
            let template = try? TemplateFile.decode(data)
        else { return }
        let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: here, localHost: settings.host))
        if let why = applicability.text {
            report.notApplicable = (report.notApplicable ?? []) + ["\(pageId)/\(version.id): \(why)"]
        }
    }

    /// Honours another host's record: a delete removes the version here (the deleted marker stays, with this
    /// host's audit record of the removal); a promote is reported.
    private func honour(_ path: String, pageId: String, name: FleetRecord.Name, into report: inout SyncReport) async throws {
        let data = try Data(contentsOf: tree.appendingPathComponent(path))
        let record = try FleetRecord.decode(data, pageId: pageId, fileName: name.fileName).get()
        switch record.kind {
        case .promote:
            report.promoted = (report.promoted ?? []) + [record.summary]
        case .delete:
            guard let version = name.version else { return }
            let audit = AuditRecord(
                time: Date(), kind: .delete, who: "\(record.who) on \(record.host)", pageId: pageId, device: "-",
                endpoint: "-", unit: 0, identity: [], templateVersion: version.number, pageHash: "", result: .deleted,
                message: "deleted version \(record.versionId) as \(record.host)'s fleet record says: \(record.reason)",
                registers: [], job: UUID().uuidString, templateVersionId: record.versionId)
            let removed = try await archive.markDeleted(
                pageId: pageId, host: version.host, number: version.number, at: record.at, record: audit)
            if removed { report.deleted = (report.deleted ?? []) + [record.summary] }
        }
    }

    enum PushOutcome { case done, rejected }

    /// Pushes this host's commits the hub does not have.
    func pushPending(timeout: Duration, into report: inout SyncReport) throws(GitError) -> PushOutcome {
        guard let head = try revParse("HEAD") else { return .done }
        let remote = try revParse(remoteRef)
        let range = remote.map { ["\($0)..\(head)"] } ?? [head]
        let count =
            Int(
                try git.run(["rev-list", "--count"] + range, timeout: settings.localTimeout).text.trimmingCharacters(
                    in: .whitespacesAndNewlines)) ?? 0
        guard count > 0 else { return .done }
        let out = try git.run(
            ["push", "-q", "--porcelain", "origin", "HEAD:refs/heads/\(settings.branch)"], timeout: timeout, check: false)
        if out.status != 0 {
            let text = out.text + out.message
            if text.contains("[rejected]") || text.contains("non-fast-forward") || text.contains("fetch first") {
                return .rejected
            }
            if text.contains("[remote rejected]") {
                throw .failed(arguments: ["push"], status: out.status, message: text)
            }
            report.result = .offline
            report.message = "hub \(settings.remote) not reachable for the push: \(out.message)"
            return .done
        }
        let names = try git.run(
            ["diff", "--name-only", "--diff-filter=A", remote ?? Self.emptyTree, head, "--", "templates"],
            timeout: settings.localTimeout
        ).text.split(separator: "\n")
        for path in names {
            let parts = path.split(separator: "/")
            guard parts.count == 3, let v = TemplateVersion.parse(fileName: String(parts[2])), v.host == settings.host else {
                continue
            }
            let id = "\(parts[1])/\(v.id)"
            if !report.templatesOut.contains(id) { report.templatesOut.append(id) }
        }
        report.commitsOut += count
        try git.run(["update-ref", remoteRef, head], timeout: settings.localTimeout)
        return .done
    }

    func aheadBehind() -> (ahead: Int, behind: Int)? {
        guard let head = try? revParse("HEAD") else { return nil }
        guard let remote = try? revParse(remoteRef) else {
            let n = (try? git.run(["rev-list", "--count", head], timeout: settings.localTimeout).text)
                .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
            return n.map { ($0, 0) }
        }
        guard
            let text = try? git.run(
                ["rev-list", "--left-right", "--count", "\(head)...\(remote)"], timeout: settings.localTimeout
            )
            .text
        else { return nil }
        let f = text.split(whereSeparator: { $0 == "\t" || $0 == " " || $0 == "\n" }).compactMap { Int($0) }
        return f.count == 2 ? (f[0], f[1]) : nil
    }

}
