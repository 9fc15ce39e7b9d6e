import Foundation

/// What a fetch from the hub changed, checked before anything of it is merged: every path by `FleetChange`'s
/// rules, then the content of every new file — a template's checksum and that its name is what it holds, a
/// delete or promote record's content and name (`FleetRecord`), a page definition's page, host and hash
/// (`FleetPageDefinition`), an audit file only appended to. Any refusal
/// refuses the whole fetch.
public struct IncomingChanges: Sendable {
    /// New template versions of other hosts.
    public var templateChanges: [(change: FleetChange, pageId: String, version: TemplateVersion)] = []
    /// New delete and promote records of other hosts.
    public var recordChanges: [(change: FleetChange, pageId: String, name: FleetRecord.Name)] = []
    /// Other hosts' audit files, created or appended to.
    public var auditChanges: [FleetChange] = []
    /// Page definitions other hosts published.
    public var definitionChanges: [(change: FleetChange, pageId: String, fileName: String)] = []
    /// Every problem found, path by path.
    public var refusals: [FleetRefusal] = []
    /// Audit lines appended (after `verify`).
    public var auditLines = 0

    /// This host's own files (re-clone, `ownFiles`): judged against what this host wrote, not refused outright.
    public var ownChanges: [(change: FleetChange, kind: FleetChange.Kind)] = []

    /// The changes `changes` classified for `localHost` (contents not yet checked: `verify`). With `ownFiles` (a
    /// re-clone, where the hub rightly holds this host's files), files in this host's namespace that were added are
    /// collected in `ownChanges` for the caller to match against this host's archive; otherwise they are refused.
    public init(changes: [FleetChange], localHost: String, ownFiles: Bool = false) {
        for change in changes {
            if ownFiles, change.status == "A", case .success(let kind) = change.classify(localHost: ""),
                kind.host == localHost
            {
                ownChanges.append((change, kind))
                continue
            }
            switch change.classify(localHost: localHost) {
            case .failure(let refusal): refusals.append(refusal)
            case .success(.template(let page, _, let version)): templateChanges.append((change, page, version))
            case .success(.record(let page, let name)): recordChanges.append((change, page, name))
            case .success(.audit): auditChanges.append(change)
            case .success(.definition(let page, let fileName, _)): definitionChanges.append((change, page, fileName))
            case .success(.ignored): break
            }
        }
    }

    /// `page/id` of every new template version.
    public var templates: [String] { templateChanges.map { "\($0.pageId)/\($0.version.id)" } }

    /// The blobs `verify` needs: every new file, and an audit file's old content.
    public var blobIds: [String] {
        templateChanges.map(\.change.newBlob) + recordChanges.map(\.change.newBlob) + definitionChanges.map(\.change.newBlob)
            + auditChanges.flatMap { [$0.newBlob] + ($0.status == "M" ? [$0.oldBlob] : []) }
    }

    /// Checks every new file's content (`blobs`: by blob id); adds a refusal per problem.
    public mutating func verify(blobs: [String: Data]) {
        for (change, page, version) in templateChanges {
            guard let data = blobs[change.newBlob] else {
                refusals.append(FleetRefusal(path: change.path, rule: .missingObject, reason: "blob missing from the fetch"))
                continue
            }
            do {
                let s = try TemplateFile.summary(data)
                let named = TemplateVersion(number: s.version, host: s.host, archivedAt: s.archivedAt)
                if s.pageId != page || named != version {
                    refusals.append(
                        FleetRefusal(
                            path: change.path, rule: .nameMatchesContent,
                            reason: "the file holds page \"\(s.pageId)\" version \(named.fileName), not its name"))
                }
            } catch {
                refusals.append(FleetRefusal(path: change.path, rule: .content, reason: "template refused: \(error.reason)"))
            }
        }
        for (change, page, name) in recordChanges {
            guard let data = blobs[change.newBlob] else {
                refusals.append(FleetRefusal(path: change.path, rule: .missingObject, reason: "blob missing from the fetch"))
                continue
            }
            if case .failure(let refusal) = FleetRecord.decode(data, pageId: page, fileName: name.fileName) {
                refusals.append(refusal)
            }
        }
        for (change, page, fileName) in definitionChanges {
            guard let data = blobs[change.newBlob] else {
                refusals.append(FleetRefusal(path: change.path, rule: .missingObject, reason: "blob missing from the fetch"))
                continue
            }
            if case .failure(let refusal) = FleetPageDefinition.decode(data, pageId: page, fileName: fileName) {
                refusals.append(refusal)
            }
        }
        for change in auditChanges {
            let new = blobs[change.newBlob] ?? Data()
            let old = change.status == "M" ? (blobs[change.oldBlob] ?? Data()) : Data()
            guard new.count >= old.count, new.prefix(old.count) == old else {
                refusals.append(
                    FleetRefusal(
                        path: change.path, rule: .appendOnly, reason: "audit records rewritten or removed (only appends are accepted)"
                    ))
                continue
            }
            auditLines += new.dropFirst(old.count).reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
        }
    }
}
