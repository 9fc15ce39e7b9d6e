import Foundation
import LastsetCore

/// `lastset fleet doctor`: what is wrong with this host's fleet, and which repairs are safe.
extension Fleet {
    /// Checks the repository, asks the hub for its branch and, when the repository is sound, fetches it and checks what
    /// it holds by the rules of a fetch (nothing is merged), naming for each problem the commit that brought it, the
    /// file and the rule. (A damaged repository cannot fetch: a re-clone checks all the hub holds itself.)
    public func diagnose() async -> FleetDiagnosis {
        state.withLock { $0.busy = true }
        defer { state.withLock { $0.busy = false } }
        let repository = repositoryFindings()
        var hub = FleetHubState(answered: false, head: nil, message: nil, incoming: 0, ahead: nil)
        var problems: [FleetProblem] = []
        do throws(GitError) {
            let listed = try git.run(
                ["ls-remote", "origin", "refs/heads/\(settings.branch)"], timeout: settings.networkTimeout, check: false)
            guard listed.status == 0 else {
                hub.message = "hub \(settings.remote) not reachable: \(Self.lastLines(listed.message))"
                return diagnosis(repository, hub, problems)
            }
            hub.answered = true
            hub.head = listed.text.split(separator: "\t").first.map(String.init)
            guard repository.allSatisfy(\.ok) else { return diagnosis(repository, hub, problems) }
            var report = SyncReport()
            guard try fetch(timeout: settings.networkTimeout, into: &report) else {
                hub.message = report.message
                return diagnosis(repository, hub, problems)
            }
            if let remote = try revParse(remoteRef) {
                hub.head = remote
                let check = try checkIncoming(head: try revParse("HEAD"), remote: remote)
                hub.incoming = check.commits.count
                problems = try locate(check.refusals, in: check.range)
            }
            hub.ahead = aheadBehind()?.ahead
        } catch {
            hub.message = "\(error)"
        }
        return diagnosis(repository, hub, problems)
    }

    private func diagnosis(_ repository: [FleetRepositoryFinding], _ hub: FleetHubState, _ problems: [FleetProblem])
        -> FleetDiagnosis
    {
        FleetDiagnosis(
            host: settings.host, remote: settings.remote, branch: settings.branch, checkedAt: Date(), repository: repository,
            hub: hub, problems: problems)
    }

    /// The repository's checks: its registered host, its objects, its branch, its hub.
    func repositoryFindings() -> [FleetRepositoryFinding] {
        let local = settings.localTimeout
        var findings: [FleetRepositoryFinding] = []
        do {
            let registered = try Self.registeredHost(dataDirectory: tree.deletingLastPathComponent())
            findings.append(
                FleetRepositoryFinding(
                    check: .host, ok: registered == settings.host,
                    detail: registered.map { "registered as \($0)" } ?? "no host registered in .git/lastset-host"))
        } catch {
            findings.append(FleetRepositoryFinding(check: .host, ok: false, detail: error.description))
        }
        func finding(_ check: FleetRepositoryCheck, _ arguments: [String], _ judge: (GitCommand.Output) -> (Bool, String))
            -> FleetRepositoryFinding
        {
            do {
                let (ok, detail) = judge(try git.run(arguments, timeout: local, check: false))
                return FleetRepositoryFinding(check: check, ok: ok, detail: detail)
            } catch {
                return FleetRepositoryFinding(check: check, ok: false, detail: "\(error)")
            }
        }
        findings.append(
            finding(.objects, ["fsck", "--connectivity-only", "--no-dangling", "--no-progress"]) { out in
                out.status == 0 ? (true, "every object reachable") : (false, Self.lastLines(out.message + "\n" + out.text))
            })
        findings.append(
            finding(.branch, ["symbolic-ref", "-q", "HEAD"]) { out in
                let ref = out.text.trimmingCharacters(in: .whitespacesAndNewlines)
                guard ref == "refs/heads/\(settings.branch)" else {
                    return (false, "HEAD is \(ref.isEmpty ? "detached" : ref), not refs/heads/\(settings.branch)")
                }
                let head = try? revParse("HEAD")
                let exists = FileManager.default.fileExists(atPath: tree.appendingPathComponent(".git/\(ref)").path)
                if head == nil && exists { return (false, "\(ref) names no readable commit") }
                return (true, head.map { "\(settings.branch) at \($0.prefix(12))" } ?? "no commit yet")
            })
        findings.append(
            finding(.remote, ["remote", "get-url", "origin"]) { out in
                let url = out.text.trimmingCharacters(in: .whitespacesAndNewlines)
                return url == settings.remote ? (true, url) : (false, "origin is \"\(url)\", not \(settings.remote)")
            })
        return findings
    }

    /// Each refusal with the commit of `range` that brought it: for a file, the newest commit of the range that touches
    /// it (the one that left it as the hub has it); a signature names its commit already.
    func locate(_ refusals: [FleetRefusal], in range: [String]) throws(GitError) -> [FleetProblem] {
        var problems: [FleetProblem] = []
        var summaries: [String: String] = [:]
        func summary(_ commit: String) throws(GitError) -> String {
            if let s = summaries[commit] { return s }
            let s = try git.run(["log", "-1", "--format=%an: %s", commit], timeout: settings.localTimeout).text
                .trimmingCharacters(in: .whitespacesAndNewlines)
            summaries[commit] = s
            return s
        }
        for refusal in refusals {
            var commit: String?
            if refusal.path.hasPrefix("commit ") {
                commit = String(refusal.path.dropFirst(7))
            } else {
                let out = try git.run(
                    ["log", "-1", "--format=%H", "--no-renames"] + range + ["--", refusal.path],
                    timeout: settings.localTimeout)
                commit = out.text.split(separator: "\n").first.map(String.init)
            }
            problems.append(
                FleetProblem(
                    commit: commit, commitSummary: try commit.map(summary), path: refusal.path, rule: refusal.rule,
                    reason: refusal.reason))
        }
        return problems
    }

    /// The last three lines of git's output, for a finding.
    static func lastLines(_ text: String) -> String {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.suffix(3)
            .joined(separator: "; ")
    }
}
