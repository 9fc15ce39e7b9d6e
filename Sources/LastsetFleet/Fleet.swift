import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats
import LastsetSystem
import Synchronization

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
    /// The settings in force (a config reload may change them: `apply`).
    public nonisolated var settings: FleetSettings { state.withLock { $0.settings } }
    /// The repository's work tree, `<data>/fleet`.
    public nonisolated let tree: URL
    /// Runs git with the settings in force.
    nonisolated var git: GitCommand { state.withLock { $0.git } }
    let archive: TemplateArchive
    let audit: AuditLog
    private let executor = DispatchQueueExecutor(label: "lastset.fleet")
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// What health shows; readable while a sync holds the actor.
    struct State: Sendable {
        var settings: FleetSettings
        var git: GitCommand
        /// The scheduled syncs (`startSchedule`) and who hears of each, and of each packing after one (`upkeep`).
        var schedule: Task<Void, Never>?
        var onSync: (@Sendable (SyncReport, SyncResult?) -> Void)?
        var onUpkeep: (@Sendable (FleetUpkeepReport) -> Void)?
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
    nonisolated let state: Mutex<State>

    /// Marks the last commit whose templates were copied into the archive.
    static let adoptedRef = "refs/lastset/adopted"
    /// git's empty tree.
    static let emptyTree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
    nonisolated var remoteRef: String { "refs/remotes/origin/\(settings.branch)" }

    /// A fleet over the data directory's archive and audit log; `open()` prepares the repository.
    public init(settings: FleetSettings, dataDirectory: URL, archive: TemplateArchive, audit: AuditLog) {
        let tree = dataDirectory.appendingPathComponent("fleet", isDirectory: true)
        self.tree = tree
        state = Mutex(State(settings: settings, git: Self.git(tree, settings)))
        self.archive = archive
        self.audit = audit
    }

    private static func git(_ tree: URL, _ settings: FleetSettings) -> GitCommand {
        GitCommand(workTree: tree.path, sshKey: settings.sshKey, knownHosts: settings.knownHosts)
    }

    /// The fleet host a data directory was registered as; nil only when it never joined a fleet (no host file).
    /// A host file that cannot be read, or holds no valid host name, is an error: read as "never registered" it
    /// would let another host name start and change what a plain version number means.
    public static func registeredHost(dataDirectory: URL) throws(FleetError) -> String? {
        let path = dataDirectory.appendingPathComponent("fleet/.git/lastset-host").path
        var info = stat()
        if lstat(path, &info) != 0 && errno == ENOENT { return nil }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .hostFileUnreadable(path: path, reason: "cannot be read (\(error.localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw .hostFileUnreadable(path: path, reason: "is not UTF-8 text")
        }
        let host = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard SafeName.isValid(host) else {
            throw .hostFileUnreadable(path: path, reason: "holds \"\(host)\", not a valid host name")
        }
        return host
    }

    /// Creates or opens the repository, applies the settings to it and commits any version of this
    /// host the repository does not have yet (made before the fleet, or while a commit failed).
    public func open() async throws(FleetError) {
        try prepareRepository()
        do {
            _ = try await catchUp()
        } catch {
            throw .git(error)
        }
    }

    /// Creates the repository when there is none (or opens it), clears lock files a killed git left, registers the
    /// host (or checks it is the registered one) and applies the settings.
    func prepareRepository() throws(FleetError) {
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
            if let registered = try Self.registeredHost(dataDirectory: tree.deletingLastPathComponent()) {
                guard registered == settings.host else {
                    throw FleetError.hostChanged(registered: registered, configured: settings.host)
                }
            } else {
                try Data((settings.host + "\n").utf8).write(to: marker, options: .atomic)
            }
            try configure()
            try FileManager.default.createDirectory(
                at: tree.appendingPathComponent("templates"), withIntermediateDirectories: true)
        } catch let error as FleetError {
            throw error
        } catch let error as GitError {
            throw .git(error)
        } catch {
            throw .storage("\(tree.path): \(error.localizedDescription)")
        }
    }

    /// Applies the settings to the repository: identity, signing and the allowed signers, the hub's URL.
    func configure() throws(GitError) {
        let (settings, git, local) = (self.settings, self.git, self.settings.localTimeout)
        var config: [(String, String)] = [
            ("core.symlinks", "false"), ("core.fsync", "committed"), ("core.fsyncMethod", "fsync"),
            ("gc.autoDetach", "false"), ("merge.renames", "false"), ("diff.renames", "false"),
            ("user.name", "lastsetd on \(settings.host)"), ("user.email", "lastsetd@\(settings.host)"),
            ("gpg.format", "ssh"), ("commit.gpgSign", settings.signingKey == nil ? "false" : "true"),
        ]
        if let key = settings.signingKey { config.append(("user.signingKey", key)) }
        if let signers = settings.allowedSigners { config.append(("gpg.ssh.allowedSignersFile", signers)) }
        // git never packs on its own here (within a sync's bounded calls it could be stopped half way); `upkeep` does.
        if !settings.legacyGrowth { config += [("gc.auto", "0"), ("maintenance.auto", "false")] }
        for (key, value) in config { try git.run(["config", key, value], timeout: local) }
        for key in ["user.signingKey", "gpg.ssh.allowedSignersFile", "gc.auto", "maintenance.auto"]
        where !config.contains(where: { $0.0 == key }) {
            try git.run(["config", "--unset-all", key], timeout: local, check: false)
        }
        let remotes = try git.run(["remote"], timeout: local).text.split(separator: "\n")
        if remotes.contains("origin") {
            try git.run(["remote", "set-url", "origin", settings.remote], timeout: local)
        } else {
            try git.run(["remote", "add", "origin", settings.remote], timeout: local)
        }
    }

    /// Puts new settings in force (a config reload, which `FleetReload` let through: the host and branch stay): the
    /// repository takes them at once (after a sync in progress) and the scheduled syncs start again, the first right
    /// away. When the repository cannot take them, the settings in force stay and the error says why.
    public func apply(_ next: FleetSettings) throws(FleetError) {
        let previous = settings
        state.withLock {
            $0.settings = next
            $0.git = Self.git(tree, next)
        }
        do {
            try configure()
            // Another hub: what the old one had is no measure of what this one lacks (the next sync pushes everything
            // the new hub does not have).
            if next.remote != previous.remote {
                try git.run(["update-ref", "-d", remoteRef], timeout: next.localTimeout, check: false)
            }
        } catch {
            state.withLock {
                $0.settings = previous
                $0.git = Self.git(tree, previous)
            }
            try? configure()
            throw .git(error)
        }
        restartSchedule()
    }

    // MARK: schedule

    /// Syncs now and then every `interval` (none: this one only), telling `report` of each sync with the result of
    /// the one before, and packing the repository after a sync that found the fleet idle (`upkeep`, told to
    /// `upkept`); `apply` starts it again with new settings.
    public nonisolated func startSchedule(
        _ report: @escaping @Sendable (SyncReport, SyncResult?) -> Void,
        upkept: (@Sendable (FleetUpkeepReport) -> Void)? = nil
    ) {
        state.withLock {
            $0.onSync = report
            $0.onUpkeep = upkept
        }
        restartSchedule()
    }

    /// Stops the scheduled syncs (a sync in progress finishes).
    public nonisolated func stopSchedule() {
        state.withLock {
            $0.schedule?.cancel()
            $0.schedule = nil
            $0.onSync = nil
            $0.onUpkeep = nil
        }
    }

    private nonisolated func restartSchedule() {
        state.withLock { s in
            s.schedule?.cancel()
            guard let report = s.onSync else { return }
            let upkept = s.onUpkeep
            s.schedule = Task {
                var last: SyncResult?
                while !Task.isCancelled {
                    let r = await self.sync()
                    report(r, last)
                    last = r.result
                    if let packed = await self.upkeep(after: r) { upkept?(packed) }
                    guard let interval = self.settings.interval else { return }
                    do { try await Task.sleep(for: interval) } catch { return }
                }
            }
        }
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
                let caughtUp = try await catchUp()
                report.templatesOut += caughtUp
                if !caughtUp.isEmpty { _ = try await publishDefinitions() }
                _ = try await catchUpRecords()
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
}

/// Why the fleet could not be opened.
public enum FleetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A git call failed.
    case git(GitError)
    /// The repository directory could not be prepared.
    case storage(String)
    /// The data directory belongs to another host name: plain numbers would change meaning.
    case hostChanged(registered: String, configured: String)
    /// The file naming the host a data directory was registered as exists but says no host.
    case hostFileUnreadable(path: String, reason: String)

    public var description: String {
        switch self {
        case .git(let e): return "fleet: \(e)"
        case .storage(let s): return "fleet: \(s)"
        case .hostFileUnreadable(let path, let reason):
            return
                "fleet: \(path) \(reason): it names the host this data directory was registered as, which decides what a plain version number means; restore it (one line, the fleet.host this data directory had) or start from a new data directory"
        case .hostChanged(let r, let c):
            return
                "fleet.host \"\(c)\" differs from \"\(r)\", the host this data directory was registered as: its versions are named \(r)-N, so a new name would change what a plain version number means here; set fleet.host to \"\(r)\" (or start from a new data directory)"
        }
    }
}
