import Foundation

/// One path that changed between two commits of the fleet repository, as `git diff --raw -z
/// --no-renames --no-abbrev` reports it, and what Lastset makes of it.
///
/// The repository holds `templates/<page>/<version file>` (each host adds only files named with its
/// own host), `history/<page>/<record file>` (each host adds only its own deletes' and promotes' records:
/// `FleetRecord`), `pages/<page>/<definition file>` (each host adds only the page definitions it published:
/// `FleetPageDefinition`) and `audit/<host>.jsonl` (each host appends only to its own). So an incoming change from
/// another host is a new template file of that host, a new record of that host or an append to that host's
/// audit file; anything else under `templates/`, `history/` or `audit/` (a rewritten or deleted version or
/// record, a symlink, a file in this host's namespace) is refused before it is merged. Other paths are ignored.
public struct FleetChange: Sendable, Hashable {
    /// git's status letter: `A`dded, `M`odified, `D`eleted, `T`ype changed.
    public var status: Character
    public var oldMode: String
    public var newMode: String
    public var oldBlob: String
    public var newBlob: String
    public var path: String

    /// A change as listed.
    public init(status: Character, oldMode: String, newMode: String, oldBlob: String, newBlob: String, path: String) {
        self.status = status
        self.oldMode = oldMode
        self.newMode = newMode
        self.oldBlob = oldBlob
        self.newBlob = newBlob
        self.path = path
    }

    /// What an incoming change is.
    public enum Kind: Sendable, Hashable {
        /// A new template version of another host.
        case template(pageId: String, fileName: String, version: TemplateVersion)
        /// A new delete or promote record of another host.
        case record(pageId: String, name: FleetRecord.Name)
        /// Another host's audit file, created or appended to.
        case audit(host: String)
        /// A page definition another host published (`FleetPageDefinition`).
        case definition(pageId: String, fileName: String, host: String)
        /// Not a path Lastset uses.
        case ignored

        /// The host whose namespace the path is in (nil for an ignored path).
        public var host: String? {
            switch self {
            case .template(_, _, let version): version.host
            case .record(_, let name): name.host
            case .audit(let host): host
            case .definition(_, _, let host): host
            case .ignored: nil
            }
        }
    }

    /// Parses `git diff --raw -z --no-abbrev` output; nil when it is not in that form.
    public static func parse(raw: Data) -> [FleetChange]? {
        var out: [FleetChange] = []
        let fields = raw.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        var i = 0
        while i < fields.count {
            let head = fields[i]
            if head.isEmpty && i == fields.count - 1 { break }
            let parts = head.split(separator: " ")
            guard head.hasPrefix(":"), parts.count == 5, i + 1 < fields.count, let status = parts[4].first else { return nil }
            out.append(
                FleetChange(
                    status: status, oldMode: String(parts[0].dropFirst()), newMode: String(parts[1]), oldBlob: String(parts[2]),
                    newBlob: String(parts[3]), path: fields[i + 1]))
            i += 2
        }
        return out
    }

    /// What this change is when it comes from the hub to `localHost`, or why it is refused.
    public func classify(localHost: String) -> Result<Kind, FleetRefusal> {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard let top = parts.first,
            top == "templates" || top == "audit" || top == FleetRecord.folder || top == FleetPageDefinition.folder
        else {
            return .success(.ignored)
        }
        func refuse(_ rule: FleetRule, _ why: String) -> Result<Kind, FleetRefusal> {
            .failure(FleetRefusal(path: path, rule: rule, reason: why))
        }
        if top == FleetRecord.folder { return classifyRecord(parts, localHost: localHost) }
        if top == FleetPageDefinition.folder { return classifyDefinition(parts, localHost: localHost) }
        if top == "templates" {
            guard parts.count == 3, SafeName.isValid(parts[1]) else { return refuse(.layout, "not templates/<page>/<version file>") }
            guard let version = TemplateVersion.parse(fileName: parts[2]), let host = version.host else {
                return refuse(.name, "not the name of a fleet template version")
            }
            guard host != localHost else {
                return refuse(.ownNamespace, "a version in this host's (\(localHost)) namespace, written elsewhere")
            }
            if let refusal = addedRegularFile(
                removed: "version \(version.id) deleted: versions are never removed from the hub",
                rewritten: "version \(version.id) rewritten: a version id never changes meaning")
            {
                return .failure(refusal)
            }
            return .success(.template(pageId: parts[1], fileName: parts[2], version: version))
        }
        guard parts.count == 2, parts[1].hasSuffix(".jsonl"), SafeName.isValid(String(parts[1].dropLast(6))) else {
            return refuse(.layout, "not audit/<host>.jsonl")
        }
        let host = String(parts[1].dropLast(6))
        guard host != localHost else { return refuse(.ownNamespace, "this host's (\(localHost)) audit file, written elsewhere") }
        guard status == "A" || status == "M" else { return refuse(.removed, "audit file of \(host) deleted or replaced") }
        guard newMode == "100644" else { return refuse(.regularFile, "mode \(newMode): only regular files are accepted") }
        return .success(.audit(host: host))
    }

    /// `history/<page>/<kind>@<version>@<host>.json`: only added, only by another host, a regular file.
    private func classifyRecord(_ parts: [String], localHost: String) -> Result<Kind, FleetRefusal> {
        func refuse(_ rule: FleetRule, _ why: String) -> Result<Kind, FleetRefusal> {
            .failure(FleetRefusal(path: path, rule: rule, reason: why))
        }
        guard parts.count == 3, SafeName.isValid(parts[1]) else { return refuse(.layout, "not history/<page>/<record file>") }
        guard let name = FleetRecord.Name.parse(fileName: parts[2]) else {
            return refuse(.name, "not the name of a fleet record (<delete|promote>@<host>-<n>@<host>.json)")
        }
        guard name.host != localHost else {
            return refuse(.ownNamespace, "a record in this host's (\(localHost)) namespace, written elsewhere")
        }
        if let refusal = addedRegularFile(
            removed: "the \(name.kind.rawValue) record of \(name.versionId) removed: records are never removed",
            rewritten: "the \(name.kind.rawValue) record of \(name.versionId) rewritten: a record never changes")
        {
            return .failure(refusal)
        }
        return .success(.record(pageId: parts[1], name: name))
    }
}

extension FleetChange {
    /// `pages/<page>/<hash>@<host>.json`: only added, only by another host, a regular file.
    fileprivate func classifyDefinition(_ parts: [String], localHost: String) -> Result<Kind, FleetRefusal> {
        func refuse(_ rule: FleetRule, _ why: String) -> Result<Kind, FleetRefusal> {
            .failure(FleetRefusal(path: path, rule: rule, reason: why))
        }
        guard parts.count == 3, SafeName.isValid(parts[1]) else { return refuse(.layout, "not pages/<page>/<definition file>") }
        guard let named = FleetPageDefinition.parse(fileName: parts[2]) else {
            return refuse(.name, "not the name of a page definition (<hash>@<host>.json)")
        }
        guard named.host != localHost else {
            return refuse(.ownNamespace, "a page definition in this host's (\(localHost)) namespace, written elsewhere")
        }
        if let refusal = addedRegularFile(
            removed: "a page definition removed: definitions are never removed",
            rewritten: "a page definition rewritten: a definition never changes")
        {
            return .failure(refusal)
        }
        return .success(.definition(pageId: parts[1], fileName: parts[2], host: named.host))
    }
}

extension FleetChange {
    /// The refusal of a file that was not added as a regular file (versions, records and definitions are only ever
    /// added, never removed or rewritten); nil when it was.
    fileprivate func addedRegularFile(removed: String, rewritten: String) -> FleetRefusal? {
        switch status {
        case "A": break
        case "D": return FleetRefusal(path: path, rule: .removed, reason: removed)
        default: return FleetRefusal(path: path, rule: .rewritten, reason: rewritten)
        }
        guard newMode == "100644" else {
            return FleetRefusal(path: path, rule: .regularFile, reason: "mode \(newMode): only regular files are accepted")
        }
        return nil
    }
}

/// Why the fleet refused what the hub holds (nothing of that fetch is merged).
public struct FleetRefusal: Error, Codable, Sendable, Hashable, CustomStringConvertible {
    /// The path (or `commit <id>`) at fault.
    public var path: String
    /// The rule it broke.
    public var rule: FleetRule
    /// What is wrong, for people.
    public var reason: String

    /// A refusal of `path` for breaking `rule`.
    public init(path: String, rule: FleetRule, reason: String) {
        self.path = path
        self.rule = rule
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}
