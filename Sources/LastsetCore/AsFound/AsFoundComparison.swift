import Foundation

/// A write Lastset knows it made to a device's register: the value an audit record says the job left the device
/// holding (a replay's `after`, written and verified or rolled back).
public struct KnownWrite: Sendable, Hashable {
    public var registerId: String
    /// What the job left the register holding.
    public var value: RegisterValue
    public var author: AsFoundAuthor

    /// Sets every field.
    public init(registerId: String, value: RegisterValue, author: AsFoundAuthor) {
        self.registerId = registerId
        self.value = value
        self.author = author
    }

    /// The writes a replay's audit record says its job made: each register a frame was sent for, with the value the
    /// record says the device held at the end (nil `after`: not known, not credited).
    public static func of(_ record: AuditRecord) -> [KnownWrite] {
        guard record.kind == .replay, record.result != .started, let job = record.job else { return [] }
        let author = AsFoundAuthor(job: job, who: record.who, time: record.time)
        return record.registers.compactMap { r in
            guard r.written != nil, let after = r.after else { return nil }
            return KnownWrite(registerId: r.registerId, value: after, author: author)
        }
    }
}

/// What a new reading of a page is against the device's previous as-found record of it.
public enum AsFoundVerdict: Sendable, Hashable {
    /// No record before: archived as the first.
    case first
    /// The same values, identity and page definition: nothing archived.
    case unchanged
    /// Archived: what changed, and whether another machine answered or the page definition changed.
    case changed([AsFoundChange], machineChanged: Bool, pageChanged: Bool)

    /// Whether a record is archived.
    public var archives: Bool { self != .unchanged }
}

/// The one decision of what a scheduled backup found (pure; `AsFoundComparisonTests`): compares a page's values as
/// read with the previous record, register by register on their raw words, and credits each change to the last
/// write Lastset knows it made to that register since then — only when that write left the very value found; any
/// other change is "by nobody Lastset knows".
public enum AsFoundComparison {
    /// The verdict on `values` and `identity` (read against the page definition `pageHash`). `writes`: the writes
    /// Lastset made to the device's page since the previous record, oldest first.
    public static func compare(
        previous: AsFoundRecord?, identity: [RecordedValue], values: [RecordedValue], pageHash: String,
        writes: [KnownWrite]
    ) -> AsFoundVerdict {
        guard let previous else { return .first }
        var lastWrite: [String: KnownWrite] = [:]
        for w in writes { lastWrite[w.registerId] = w }
        let before = Dictionary(previous.values.map { ($0.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        var changes: [AsFoundChange] = []
        for now in values {
            guard let was = before[now.registerId] else {
                changes.append(AsFoundChange(registerId: now.registerId, kind: .added, before: nil, after: now))
                continue
            }
            guard !sameWords(was.valueData, now.valueData) else { continue }
            let author = lastWrite[now.registerId].flatMap { $0.value.isSameValue(as: now.value) ? $0.author : nil }
            changes.append(AsFoundChange(registerId: now.registerId, kind: .changed, before: was, after: now, by: author))
        }
        let found = Set(values.map(\.registerId))
        for was in previous.values where !found.contains(was.registerId) {
            changes.append(AsFoundChange(registerId: was.registerId, kind: .removed, before: was, after: nil))
        }
        let machineChanged = !sameIdentity(previous.identity, identity)
        let pageChanged = previous.pageHash != pageHash
        if changes.isEmpty && !machineChanged && !pageChanged { return .unchanged }
        return .changed(changes, machineChanged: machineChanged, pageChanged: pageChanged)
    }

    /// Whether two hex spellings are the same words (`5052` and `5052`, any letter case).
    static func sameWords(_ a: String, _ b: String) -> Bool {
        a.count == b.count && a.uppercased() == b.uppercased()
    }

    private static func sameIdentity(_ a: [RecordedValue], _ b: [RecordedValue]) -> Bool {
        guard a.count == b.count else { return false }
        let was = Dictionary(a.map { ($0.registerId, $0.valueData) }, uniquingKeysWith: { x, _ in x })
        return b.allSatisfy { now in was[now.registerId].map { sameWords($0, now.valueData) } ?? false }
    }

    /// The audit message of a record: what changed and by whom, e.g. "changed since the last backup: registers
    /// speed, ramp, by nobody Lastset knows; register temp by job 9f1c… (token:ops)".
    public static func summary(_ record: AsFoundRecord) -> String {
        if record.number == 1 && record.changes.isEmpty {
            // A listing's record comes without its values.
            guard !record.values.isEmpty else { return "first backup" }
            return "first backup: \(record.values.count) register\(record.values.count == 1 ? "" : "s") as found"
        }
        var parts: [String] = []
        if record.machineChanged { parts.append("another machine answers (its identity differs from the last backup's)") }
        if record.pageChanged { parts.append("the page definition changed since the last backup") }
        let unknown = record.changes.filter { $0.by == nil }
        if !unknown.isEmpty { parts.append("\(registers(unknown)), by nobody Lastset knows") }
        var byJob: [(AsFoundAuthor, [AsFoundChange])] = []
        for change in record.changes {
            guard let author = change.by else { continue }
            if let i = byJob.firstIndex(where: { $0.0.job == author.job }) {
                byJob[i].1.append(change)
            } else {
                byJob.append((author, [change]))
            }
        }
        for (author, changes) in byJob { parts.append("\(registers(changes)) by job \(author.job) (\(author.who))") }
        return "changed since the last backup: " + parts.joined(separator: "; ")
    }

    private static func registers(_ changes: [AsFoundChange]) -> String {
        (changes.count == 1 ? "register " : "registers ") + changes.map(\.registerId).joined(separator: ", ")
    }
}
