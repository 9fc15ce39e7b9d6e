import Foundation
import LastsetCore
import LastsetEngine
import LastsetSystem
import Synchronization
import LastsetFormats

/// This host's membership of a fleet: a git repository in `<data>/fleet` whose `templates/` mirrors
/// every host's template versions and whose `audit/<host>.jsonl` carries every host's audit records,
/// synced with a hub (any git remote). The only module that runs git.
///
/// Each host writes only its own names (its versions, its audit file), so merges never conflict and a
/// rejected push is settled by the next fetch and merge, never by dropping a commit. What comes from
/// the hub is checked before it is merged (signatures under `requireSigned`, every template's checksum
/// and name, append-only audit files); anything wrong refuses the whole fetch. Verified templates are
/// then copied into the archive, which stays the only place replays read from.
public actor Fleet {
    public nonisolated let settings: FleetSettings
    /// The repository's work tree, `<data>/fleet`.
    public nonisolated let tree: URL
    private let git: GitCommand
    private let archive: TemplateArchive
    private let audit: AuditLog
    private let executor = DispatchQueueExecutor(label: "lastset.fleet")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// What health shows; readable while a sync holds the actor.
    private struct State: Sendable {
        var busy = false
        var lastSync: SyncReport?
        var lastSuccessAt: Date?
        var ahead: Int?
        var behind: Int?
        /// This host's pages (the running config's), by id: what adopted versions are judged against.
        var pages: [String: CompiledPage] = [:]
        /// Pages whose latest version from another host was captured against another definition.
        var differingPages: [FleetPageDifference] = []
    }
    private nonisolated let state = Mutex(State())

    /// Marks the last commit whose templates were copied into the archive.
    static let adoptedRef = "refs/lastset/adopted"
    /// git's empty tree.
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    private nonisolated var remoteRef: String { "refs/remotes/origin/\(settings.branch)" }

    /// A fleet over the data directory's archive and audit log; `open()` prepares the repository.
    public init(settings: FleetSettings, dataDirectory: URL, archive: TemplateArchive, audit: AuditLog) {
        self.settings = settings
        tree = dataDirectory.appendingPathComponent("fleet", isDirectory: true)
        git = GitCommand(workTree: tree.path, sshKey: settings.sshKey)
        self.archive = archive
        self.audit = audit
    }

    /// The fleet host a data directory was registered as, if it ever joined a fleet.
    public static func registeredHost(dataDirectory: URL) -> String? {
        let url = dataDirectory.appendingPathComponent("fleet/.git/lastset-host")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return nil }
        let host = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return SafeName.isValid(host) ? host : nil
    }

    /// Creates or opens the repository, applies the settings to it and commits any version of this
    /// host the repository does not have yet (made before the fleet, or while a commit failed).
    public func open() async throws(FleetError) {
        let local = settings.localTimeout
        do {
            try FileManager.default.createDirectory(at: tree, withIntermediateDirectories: true)
            if !FileManager.default.fileExists(atPath: tree.appendingPathComponent(".git").path) {
                try git.run(["init", "-q", "-b", settings.branch], timeout: local)
            }
            // Only this daemon uses the repository (the data directory is locked), so a lock file now is
            // left by a git call killed at its deadline or by a crash: without removing it every commit fails.
            for lock in [
                "index.lock", "HEAD.lock", "refs/heads/\(settings.branch).lock", "refs/remotes/origin/\(settings.branch).lock",
            ] {
                unlink(tree.appendingPathComponent(".git/" + lock).path)
            }
            let marker = tree.appendingPathComponent(".git/lastset-host")
            if let registered = Self.registeredHost(dataDirectory: tree.deletingLastPathComponent()) {
                guard registered == settings.host else {
                    throw FleetError.hostChanged(registered: registered, configured: settings.host)
                }
            } else {
                try Data((settings.host + "\n").utf8).write(to: marker, options: .atomic)
            }
            var config: [(String, String)] = [
                ("core.symlinks", "false"), ("core.fsync", "committed"), ("core.fsyncMethod", "fsync"),
                ("gc.autoDetach", "false"), ("merge.renames", "false"), ("diff.renames", "false"),
                ("user.name", "lastsetd on \(settings.host)"), ("user.email", "lastsetd@\(settings.host)"),
                ("gpg.format", "ssh"), ("commit.gpgSign", settings.signingKey == nil ? "false" : "true"),
            ]
            if let key = settings.signingKey { config.append(("user.signingKey", key)) }
            if let signers = settings.allowedSigners { config.append(("gpg.ssh.allowedSignersFile", signers)) }
            for (key, value) in config { try git.run(["config", key, value], timeout: local) }
            let remotes = try git.run(["remote"], timeout: local).text.split(separator: "\n")
            if remotes.contains("origin") {
                try git.run(["remote", "set-url", "origin", settings.remote], timeout: local)
            } else {
                try git.run(["remote", "add", "origin", settings.remote], timeout: local)
            }
            try FileManager.default.createDirectory(
                at: tree.appendingPathComponent("templates"), withIntermediateDirectories: true)
        } catch let error as FleetError {
            throw error
        } catch let error as GitError {
            throw .git(error)
        } catch {
            throw .storage("\(tree.path): \(error.localizedDescription)")
        }
        do {
            _ = try await catchUp()
        } catch {
            throw .git(error)
        }
    }

    // MARK: commits of this host

    /// Commits a version this host just archived (a capture or an import), authored by `who` on this
    /// host; pushed at the next sync. Returns a warning when the commit failed (the version is archived
    /// all the same, and the next sync commits it).
    public func record(_ template: Template, kind: AuditKind, who: String) async -> String? {
        await record(pageId: template.pageId, versionId: template.versionId.id, kind: kind, who: who)
    }

    /// `record` by page and version id (`<host>-<n>`).
    public func record(pageId: String, versionId: String, kind: AuditKind, who: String) async -> String? {
        do {
            guard
                let name = try await archive.fileNames(pageId: pageId, host: settings.host).first(where: {
                    TemplateVersion.parse(fileName: $0)?.id == versionId
                }), let data = try await archive.fileData(pageId: pageId, fileName: name)
            else {
                return "fleet: version \(versionId) of \(pageId) is not in the archive (pruned already?); nothing committed"
            }
            let relative = "templates/\(pageId)/\(name)"
            let target = tree.appendingPathComponent(relative)
            // Already committed by a sync's catch-up that ran first.
            if (try? Data(contentsOf: target)) == data { return nil }
            try FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
            try data.write(to: target, options: .atomic)
            try git.run(["add", "--", relative], timeout: settings.localTimeout)
            try commit("\(kind.rawValue) \(pageId) \(versionId)", who: who)
            return nil
        } catch {
            return
                "fleet: the \(kind.rawValue) of \(pageId) \(versionId) is archived but not yet committed (\(error)); the next sync commits it"
        }
    }

    private func commit(_ subject: String, who: String?) throws(GitError) {
        var env: [String: String] = [:]
        if let who {
            let mail = who.map { $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" ? String($0) : "-" }.joined()
            env["GIT_AUTHOR_NAME"] = "\(who) on \(settings.host)"
            env["GIT_AUTHOR_EMAIL"] = "\(mail)@\(settings.host)"
        }
        try git.run(["commit", "-q", "--no-verify", "-m", subject], timeout: settings.localTimeout, environment: env)
    }

    /// Copies into the repository every version of this host the archive has and the repository lacks,
    /// and commits them; returns their `page/id`.
    private func catchUp() async throws(GitError) -> [String] {
        var added: [String] = []
        var paths: [String] = []
        let fm = FileManager.default
        let pages: [String]
        do {
            pages = try await archive.pageIds()
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot list the archive's pages: \(error)")
        }
        for page in pages {
            let names: [String]
            do {
                names = try await archive.fileNames(pageId: page, host: settings.host)
            } catch {
                throw .failed(arguments: ["add"], status: -1, message: "cannot list the versions of \(page): \(error)")
            }
            for name in names {
                guard let v = TemplateVersion.parse(fileName: name) else { continue }
                let target = tree.appendingPathComponent("templates/\(page)/\(name)")
                guard !fm.fileExists(atPath: target.path) else { continue }
                let data: Data?
                do {
                    data = try await archive.fileData(pageId: page, fileName: name)
                } catch {
                    throw .failed(arguments: ["add"], status: -1, message: "cannot read \(page) \(v.id): \(error)")
                }
                guard let data else { continue }  // pruned or deleted since it was listed
                do {
                    try fm.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
                    try data.write(to: target, options: .atomic)
                } catch {
                    throw .failed(
                        arguments: ["add"], status: -1, message: "cannot write \(target.path): \(error.localizedDescription)")
                }
                added.append("\(page)/\(v.id)")
                paths.append("templates/\(page)/\(name)")
            }
        }
        guard !added.isEmpty else { return [] }
        // Exactly the files written here: whatever else lies in the tree (a killed write's temporary) is
        // never committed.
        try git.run(["add", "--"] + paths, timeout: settings.localTimeout)
        try commit("catch up: \(added.count) version\(added.count == 1 ? "" : "s") of \(settings.host)", who: nil)
        return added
    }

    /// Appends the audit records this host has not exported yet to `audit/<host>.jsonl` and commits;
    /// returns how many. The last line of that file is the cursor (the log's own format is untouched).
    private func exportAudit() async throws(GitError) -> Int {
        let relative = "audit/\(settings.host).jsonl"
        let file = tree.appendingPathComponent(relative)
        let existing = (try? Data(contentsOf: file)) ?? Data()
        // The last line of the file is the cursor: the records after it, found by index in the database.
        let cursor = existing.split(separator: 0x0A).last.flatMap {
            try? APICoding.decoder().decode(AuditRecord.self, from: Data($0))
        }
        let records: [AuditRecord]
        do {
            records = try await audit.records(after: cursor)
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot read the audit log: \(error)")
        }
        let start = 0
        guard start < records.count else { return 0 }
        var bytes: [UInt8] = []
        for r in records[start...] {
            var w = JSONWriter(capacity: 512 + r.registers.count * 80)
            r.write(to: &w)
            bytes += w.bytes
            bytes.append(0x0A)
        }
        do {
            try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            var data = existing
            data.append(contentsOf: bytes)
            try data.write(to: file, options: .atomic)
        } catch {
            throw .failed(arguments: ["add"], status: -1, message: "cannot write \(file.path): \(error.localizedDescription)")
        }
        try git.run(["add", "--", relative], timeout: settings.localTimeout)
        try commit("audit: \(records.count - start) record\(records.count - start == 1 ? "" : "s") of \(settings.host)", who: nil)
        return records.count - start
    }

    // MARK: sync

    /// Health's view of the fleet (never waits for a running sync).
    public nonisolated func status() -> FleetStatus {
        let s = state.withLock { $0 }
        var status = FleetStatus(
            host: settings.host, remote: settings.remote, branch: settings.branch, interval: settings.intervalText,
            requireSigned: settings.requireSigned, lastSync: s.lastSync, lastSuccessAt: s.lastSuccessAt, ahead: s.ahead,
            behind: s.behind)
        status.differingPages = s.differingPages.isEmpty ? nil : s.differingPages
        return status
    }

    /// Sets this host's pages (at start and after every config reload) and re-checks, in the background, which
    /// of them differ from the pages other hosts' versions were captured against (health).
    public nonisolated func setPages(_ pages: [CompiledPage]) {
        state.withLock { $0.pages = Dictionary(pages.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a }) }
        Task { await self.checkPages() }
    }

    /// For every page of this host: each other host's latest version whose page hash is not this page's, and
    /// whether it still applies here (the one admission decision). Kept for health.
    public func checkPages() async {
        let pages = state.withLock { $0.pages }
        var differences: [FleetPageDifference] = []
        for (pageId, page) in pages.sorted(by: { $0.key < $1.key }) {
            guard let listings = try? await archive.list(pageId: pageId) else { continue }
            // Newest first: the first listing of each other host is its latest version.
            var seen = Set<String>()
            for l in listings {
                guard let host = l.host, host != settings.host, l.checksumOK, seen.insert(host).inserted,
                    let hash = l.pageHash, hash != page.hash
                else { continue }
                var difference = FleetPageDifference(
                    pageId: pageId, host: host, version: l.id, pageHash: hash, applicable: false, reason: nil)
                do {
                    let template = try await archive.load(pageId: pageId, version: .id(host: host, number: l.version))
                    let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: page))
                    difference.applicable = applicability.applicable
                    difference.reason = applicability.text
                } catch {
                    difference.reason = "cannot load: \(error)"
                }
                differences.append(difference)
            }
        }
        state.withLock { $0.differingPages = differences }
    }

    /// Before a replay: fetch and merge what the hub has, within the short replay bound. Returns a
    /// warning for the replay report when the hub did not answer (in time) or was refused: the replay
    /// then uses what is local. Never waits for a sync already running.
    public nonisolated func refreshBeforeReplay() async -> String? {
        if state.withLock({ $0.busy }) {
            return "fleet: a sync with the hub is running; replayed the template this host already has"
        }
        let report = await sync(push: false, timeout: settings.replayFetchTimeout)
        guard report.result != .ok else { return nil }
        return
            "fleet: hub not used (\(report.result.rawValue): \(report.message ?? "no reason given")); replayed the template this host already has"
    }

    /// Syncs with the hub now: commits what is pending, fetches, checks and merges what came in, copies
    /// new templates into the archive and (with `push`) pushes. Network calls are bounded by `timeout`.
    public func sync(push: Bool = true, timeout: Duration? = nil) async -> SyncReport {
        state.withLock { $0.busy = true }
        var report = SyncReport()
        let network = timeout ?? settings.networkTimeout
        do throws(GitError) {
            if push {
                report.templatesOut += try await catchUp()
                report.auditRecordsOut = try await exportAudit()
            }
            attempts: for attempt in 1...3 {
                let fetched = try fetch(timeout: network, into: &report)
                guard fetched else { break attempts }
                try await integrate(into: &report)
                guard report.result == .ok else { break attempts }
                try await adopt(into: &report)
                guard push else { break attempts }
                switch try pushPending(timeout: network, into: &report) {
                case .done: break attempts
                case .rejected where attempt < 3: continue attempts
                case .rejected:
                    report.result = .failed
                    report.message = "the hub kept rejecting the push (others pushed meanwhile); the next sync retries"
                }
            }
        } catch {
            report.result = .failed
            report.message = error.description
        }
        if !report.templatesIn.isEmpty { await checkPages() }
        let counts = aheadBehind()
        report.ahead = counts?.ahead
        report.behind = counts?.behind
        report.finishedAt = Date()
        let finished = report
        state.withLock {
            $0.busy = false
            $0.lastSync = finished
            if finished.result == .ok { $0.lastSuccessAt = finished.finishedAt }
            if let counts {
                $0.ahead = counts.ahead
                $0.behind = counts.behind
            }
        }
        return report
    }

    /// Fetches the hub's branch; false (and the report says why) when the hub did not answer.
    private func fetch(timeout: Duration, into report: inout SyncReport) throws(GitError) -> Bool {
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

    private func revParse(_ ref: String) throws(GitError) -> String? {
        let out = try git.run(["rev-parse", "-q", "--verify", ref + "^{commit}"], timeout: settings.localTimeout, check: false)
        guard out.status == 0 else { return nil }
        return out.text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Checks what the hub has that this host has not merged, and merges it when nothing is wrong.
    private func integrate(into report: inout SyncReport) async throws(GitError) {
        guard let remote = try revParse(remoteRef) else { return }
        let head = try revParse("HEAD")
        let range = head.map { ["\($0)..\(remote)"] } ?? [remote]
        let incoming = try git.run(["rev-list"] + range, timeout: settings.localTimeout).text.split(separator: "\n").map(
            String.init)
        guard !incoming.isEmpty else { return }
        var refusals: [FleetRefusal] = []
        if settings.requireSigned {
            let log = try git.run(["log", "--format=%H %G? %GS"] + range, timeout: settings.localTimeout).text
            for line in log.split(separator: "\n") {
                let f = line.split(separator: " ", maxSplits: 2).map(String.init)
                guard f.count >= 2 else { continue }
                if f[1] != "G" {
                    refusals.append(FleetRefusal(path: "commit \(f[0])", reason: Self.signatureProblem(f[1])))
                }
            }
        }
        var base = Self.emptyTree
        var related = false
        if let head {
            let mb = try git.run(["merge-base", head, remote], timeout: settings.localTimeout, check: false)
            if mb.status == 0 {
                base = mb.text.trimmingCharacters(in: .whitespacesAndNewlines)
                related = true
            }
        }
        let raw = try git.run(
            ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", base, remote], timeout: settings.localTimeout)
        guard let changes = FleetChange.parse(raw: raw.stdout) else {
            throw .failed(arguments: ["diff"], status: 0, message: "unexpected git diff output")
        }
        var templates: [(FleetChange, String, String, TemplateVersion)] = []
        var audits: [FleetChange] = []
        for change in changes {
            switch change.classify(localHost: settings.host) {
            case .failure(let refusal): refusals.append(refusal)
            case .success(.template(let page, let name, let version)): templates.append((change, page, name, version))
            case .success(.audit): audits.append(change)
            case .success(.ignored): break
            }
        }
        let blobs = try readBlobs(
            templates.map(\.0.newBlob) + audits.flatMap { [$0.newBlob] + ($0.status == "M" ? [$0.oldBlob] : []) })
        for (change, page, name, version) in templates {
            guard let data = blobs[change.newBlob] else {
                refusals.append(FleetRefusal(path: change.path, reason: "blob missing from the fetch"))
                continue
            }
            do {
                let s = try TemplateFile.summary(data)
                let named = TemplateVersion(number: s.version, host: s.host, archivedAt: s.archivedAt)
                if s.pageId != page || named != version {
                    refusals.append(
                        FleetRefusal(
                            path: change.path,
                            reason: "the file holds page \"\(s.pageId)\" version \(named.fileName), not its name"))
                }
            } catch {
                refusals.append(FleetRefusal(path: change.path, reason: "template refused: \(error.reason)"))
            }
            _ = name
        }
        var auditLines = 0
        for change in audits {
            let new = blobs[change.newBlob] ?? Data()
            let old = change.status == "M" ? (blobs[change.oldBlob] ?? Data()) : Data()
            guard new.count >= old.count, new.prefix(old.count) == old else {
                refusals.append(
                    FleetRefusal(path: change.path, reason: "audit records rewritten or removed (only appends are accepted)"))
                continue
            }
            auditLines += new.dropFirst(old.count).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        }
        guard refusals.isEmpty else {
            report.result = .refused
            report.refused = refusals
            report.message =
                "refused \(refusals.count) problem\(refusals.count == 1 ? "" : "s") in \(incoming.count) commit\(incoming.count == 1 ? "" : "s") from the hub; nothing of it merged, local templates keep working"
            return
        }
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
        report.commitsIn += incoming.count
        report.templatesIn += templates.map { "\($0.1)/\($0.3.id)" }
        report.auditRecordsIn += auditLines
    }

    private static func signatureProblem(_ code: String) -> String {
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
    private func readBlobs(_ ids: [String]) throws(GitError) -> [String: Data] {
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

    /// Copies the templates of other hosts merged since the last adoption into the archive.
    private func adopt(into report: inout SyncReport) async throws(GitError) {
        guard let head = try revParse("HEAD") else { return }
        let from = try revParse(Self.adoptedRef) ?? Self.emptyTree
        guard from != head else { return }
        let raw = try git.run(
            ["diff", "--raw", "-z", "--no-renames", "--no-abbrev", from, head, "--", "templates"], timeout: settings.localTimeout)
        var complete = true
        for change in FleetChange.parse(raw: raw.stdout) ?? [] where change.status == "A" {
            guard case .success(.template(let page, let name, _)) = change.classify(localHost: settings.host) else { continue }
            do {
                let data = try Data(contentsOf: tree.appendingPathComponent(change.path))
                let adoption = try await archive.adopt(data, fileName: name, pageId: page)
                // Kept whatever it holds (it is history), but judged by the one admission decision against
                // this host's page: a version captured against another register layout is not applicable here.
                if case .added(let version) = adoption, let here = state.withLock({ $0.pages[page] }),
                    let template = try? TemplateFile.decode(data)
                {
                    let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: here))
                    if let why = applicability.text {
                        report.notApplicable = (report.notApplicable ?? []) + ["\(page)/\(version.id): \(why)"]
                    }
                }
            } catch let error as ArchiveError {
                complete = false
                report.refused.append(FleetRefusal(path: change.path, reason: error.description))
            } catch {
                complete = false
                report.refused.append(FleetRefusal(path: change.path, reason: error.localizedDescription))
            }
        }
        if complete {
            try git.run(["update-ref", Self.adoptedRef, head], timeout: settings.localTimeout)
        } else {
            report.result = .refused
            report.message = "some templates from the hub could not be archived here (see refused)"
        }
    }

    private enum PushOutcome { case done, rejected }

    /// Pushes this host's commits the hub does not have.
    private func pushPending(timeout: Duration, into report: inout SyncReport) throws(GitError) -> PushOutcome {
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

    private func aheadBehind() -> (ahead: Int, behind: Int)? {
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

    // MARK: other hosts' audit records

    /// Other hosts' audit records as merged here, by host (this host's own come from its audit log).
    public func otherHostsAudit() -> [(host: String, records: [AuditRecord], unreadable: Int)] {
        let dir = tree.appendingPathComponent("audit")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted()
        let decoder = APICoding.decoder()
        var out: [(String, [AuditRecord], Int)] = []
        for name in names where name.hasSuffix(".jsonl") {
            let host = String(name.dropLast(6))
            guard host != settings.host, SafeName.isValid(host),
                let data = try? Data(contentsOf: dir.appendingPathComponent(name))
            else { continue }
            var records: [AuditRecord] = []
            var bad = 0
            for line in data.split(separator: 0x0A) {
                if let r = try? decoder.decode(AuditRecord.self, from: Data(line)) { records.append(r) } else { bad += 1 }
            }
            // As the audit log reads: an intent whose job has a later record is folded into it.
            let completed = Set(records.filter { $0.result != .started }.compactMap(\.job))
            records.removeAll { $0.result == .started && $0.job.map(completed.contains) == true }
            out.append((host, records, bad))
        }
        return out
    }
}

/// Why the fleet could not be opened.
public enum FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A git call failed.
    case git(GitError)
    /// The repository directory could not be prepared.
    case storage(String)
    /// The data directory belongs to another host name: plain numbers would change meaning.
    case hostChanged(registered: String, configured: String)

    public var description: String {
        switch self {
        case .git(let e): return "fleet: \(e)"
        case .storage(let s): return "fleet: \(s)"
        case .hostChanged(let r, let c):
            return
                "fleet.host \"\(c)\" differs from \"\(r)\", the host this data directory was registered as: its versions are named \(r)-N, so a new name would change what a plain version number means here; set fleet.host to \"\(r)\" (or start from a new data directory)"
        }
    }
}
