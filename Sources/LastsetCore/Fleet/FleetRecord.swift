import Foundation
import LastsetFormats

/// A delete or a promote of a template version as it travels through a fleet: a record of its own, one file
/// per record, `history/<page>/<kind>@<version id>@<host>.json`, written once by the host where it happened
/// (`host`) in a commit of its own (signed with that host's key under `requireSigned`) and never changed.
///
/// A delete's record is the version's tombstone: every host that merges it removes the version from its archive
/// and keeps its deleted marker, so no sync, restart or re-clone brings the version back; the hub keeps the
/// template file (no host rewrites another host's files). A promote's record says who made which version the
/// latest again, and why (the template file says from which version).
public struct FleetRecord: Codable, Sendable, Hashable {
    /// What happened to the version.
    public enum Kind: String, Codable, Sendable, Hashable, CaseIterable {
        /// The version was deleted (a tombstone).
        case delete
        /// The version was made by promoting an older one.
        case promote
    }

    /// Marks the file as a fleet record (`"lastset-fleet-record"`).
    public var format: String
    public var kind: Kind
    public var pageId: String
    /// The version deleted, or the version a promote made (`<host>-<n>`).
    public var versionId: String
    /// The host where it happened: the only host that writes this file.
    public var host: String
    /// Who did it there (`uid:1000(op)`, `token:ops`).
    public var who: String
    /// When it was done there.
    public var at: Date
    /// Why (the audit record's message, with the operator's reason when one was given).
    public var reason: String
    /// The job of the audit record it came from.
    public var job: String?

    /// The `format` every record carries.
    public static let formatName = "lastset-fleet-record"
    /// The repository folder of the records.
    public static let folder = "history"

    /// A record.
    public init(
        kind: Kind, pageId: String, versionId: String, host: String, who: String, at: Date, reason: String,
        job: String? = nil
    ) {
        format = Self.formatName
        self.kind = kind
        self.pageId = pageId
        self.versionId = versionId
        self.host = host
        self.who = who
        self.at = TemplateVersion.milliseconds(at)
        self.reason = reason
        self.job = job
    }

    /// What a record's file name says: its kind, version and writing host.
    public struct Name: Sendable, Hashable {
        public var kind: Kind
        public var versionId: String
        public var host: String

        /// A name.
        public init(kind: Kind, versionId: String, host: String) {
            self.kind = kind
            self.versionId = versionId
            self.host = host
        }

        /// `delete@line-a-2@line-b.json`.
        public var fileName: String { "\(kind.rawValue)@\(versionId)@\(host).json" }

        /// The version it names (a fleet id: host and number).
        public var version: (host: String, number: Int)? {
            guard case .id(let h, let n)? = TemplateVersionRef.parse(versionId) else { return nil }
            return (h, n)
        }

        /// Parses a file name written by `fileName`; nil for anything else.
        public static func parse(fileName: String) -> Name? {
            guard fileName.hasSuffix(".json") else { return nil }
            let parts = fileName.dropLast(5).split(separator: "@", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3, let kind = Kind(rawValue: parts[0]), case .id? = TemplateVersionRef.parse(parts[1]),
                SafeName.isValid(parts[2])
            else { return nil }
            let name = Name(kind: kind, versionId: parts[1], host: parts[2])
            // A promote makes a version of the host that promoted.
            if kind == .promote && name.version?.host != name.host { return nil }
            return name
        }
    }

    /// The name of this record's file.
    public var name: Name { Name(kind: kind, versionId: versionId, host: host) }

    /// Its path in the repository.
    public var path: String { "\(Self.folder)/\(pageId)/\(name.fileName)" }

    /// The file's bytes: one line of JSON, keys sorted. Throws what the encoder throws: an empty file is never written
    /// in its place. (Written by `JSONEncoder`, not `JSONWriter`: a repair compares the hub's copy byte for byte with
    /// these bytes, so they stay the ones every record file was written with.)
    public func encoded() throws -> Data {
        var data = try APICoding.encoder().encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a record file and checks it is the record its path names (`history/<page>/<name>`).
    public static func decode(_ data: Data, pageId: String, fileName: String) -> Result<FleetRecord, FleetRefusal> {
        let path = "\(folder)/\(pageId)/\(fileName)"
        let record: FleetRecord
        do {
            record = try APICoding.decoder().decode(FleetRecord.self, from: data)
        } catch {
            return .failure(
                FleetRefusal(
                    path: path, rule: .content, reason: "not a fleet record (\(formatName)): \(APICoding.describe(error))"))
        }
        guard record.format == formatName else {
            return .failure(
                FleetRefusal(
                    path: path, rule: .content, reason: "not a fleet record (\(formatName)): its format is \"\(record.format)\""))
        }
        guard record.pageId == pageId, record.name.fileName == fileName else {
            return .failure(
                FleetRefusal(
                    path: path, rule: .nameMatchesContent,
                    reason:
                        "the file holds the \(record.kind.rawValue) of page \"\(record.pageId)\" version \(record.versionId) by \(record.host), not its name"
                ))
        }
        guard !record.who.isEmpty, !record.reason.isEmpty else {
            return .failure(FleetRefusal(path: path, rule: .content, reason: "a fleet record needs who and why"))
        }
        return .success(record)
    }

    /// The record a delete or promote of this host's audit log makes (`host`: this host), or nil when the audit
    /// record is not one (another kind, a failure, an intent, no fleet version id).
    public static func from(_ record: AuditRecord, host: String) -> FleetRecord? {
        let kind: Kind
        switch (record.kind, record.result) {
        case (.delete, .deleted): kind = .delete
        case (.promote, .archived): kind = .promote
        default: return nil
        }
        guard let id = record.templateVersionId, case .id(let versionHost, _)? = TemplateVersionRef.parse(id) else {
            return nil
        }
        // A promote makes a version of this host; a version of another host named by a promote is not one.
        if kind == .promote && versionHost != host { return nil }
        return FleetRecord(
            kind: kind, pageId: record.pageId, versionId: id, host: host, who: record.who, at: record.time,
            reason: record.message ?? "\(kind.rawValue) of version \(id)", job: record.job)
    }

    /// How a sync reports it: `heating/line-a-2 by uid:1000 on line-b at 2026-…Z: why`.
    public var summary: String {
        "\(pageId)/\(versionId) by \(who) on \(host) at \(TimeText.iso8601(at)): \(reason)"
    }
}
