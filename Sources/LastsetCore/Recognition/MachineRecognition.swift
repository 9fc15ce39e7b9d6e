import Foundation

/// One configured page as a fingerprint poll finds it: its last verified version (if any), whether a replay left it
/// marked, and which applied registers hold values someone else set (`AppliedPageReading.setElsewhere`).
public struct PageStanding: Hashable, Sendable {
    /// The page.
    public var pageId: String
    /// The version last applied and verified (nil: none known).
    public var versionId: String?
    /// When it was applied.
    public var appliedAt: Date?
    /// An interrupted or failed replay left the page marked.
    public var marked: Bool
    /// Applied registers holding neither what was applied nor "not set", or not read.
    public var setElsewhere: [String]

    /// Sets every field.
    public init(pageId: String, versionId: String?, appliedAt: Date?, marked: Bool = false, setElsewhere: [String] = []) {
        self.pageId = pageId
        self.versionId = versionId
        self.appliedAt = appliedAt
        self.marked = marked
        self.setElsewhere = setElsewhere
    }
}

/// The one decision after a fingerprint poll: from the device's record, the verdict (`ReconnectClassifier`), the
/// `replacement` policy and the pages' standing, the next record and what the daemon does. Pure
/// (`MachineRecognitionTests`). Its rules: a finding is noticed once and kept open until resolved; a restore is
/// asked for only under `restore`, only for a replaced or reset machine, only of pages with a verified version, only
/// when no page is marked and no applied register holds a value someone set, and at most once per finding (a finding
/// waits in `pending` while another job holds the machine); another model is never written to; a machine never
/// seen is recorded by its fingerprint alone.
public enum MachineRecognition {
    /// What the daemon does after the decision.
    public enum Action: Hashable, Sendable {
        /// Nothing new.
        case none
        /// The fingerprint was recorded as the device's (first seen, or the config's identity changed).
        case recorded
        /// A new finding (log, event; its `restore` says whether a restore is due).
        case noticed(MachineEvent)
        /// The open finding's detail changed.
        case updated(MachineEvent)
        /// A restore is due now (a new finding, or a pending one whose machine was held by another job).
        case restore(MachineEvent)
        /// The open finding is resolved; `adopted`: the machine found is the device's from now on.
        case resolved(MachineEvent, adopted: Bool)
    }

    /// The next record and the action, for `verdict` on the fingerprint `now` read under `parts`, at `time`.
    public static func next(
        record: MachineRecord, parts: [String], now: MachineFingerprint?, verdict: MachineVerdict, policy: ReplacementPolicy,
        pages: [PageStanding], at time: Date
    ) -> (record: MachineRecord, action: Action) {
        var next = record
        guard let now else { return (record, .none) }
        switch verdict {
        case .unreadable: return (record, .none)
        case .firstSeen:
            return (MachineRecord(known: now, parts: parts, knownSince: time), .recorded)
        case .sameAndConforming:
            guard let open = record.event else { return (record, .none) }
            next.event = nil
            return (next, .resolved(open, adopted: false))
        default: break
        }
        guard let (kind, detail) = finding(verdict) else { return (record, .none) }
        var event = MachineEvent(kind: kind, detail: detail, fingerprint: now, noticedAt: time)
        if let open = record.event, open.isSame(as: event) {
            if replayedSince(open, pages) {
                // A reset machine restored is the same machine; another one replayed to is the device's from now on.
                let adopted = kind != .factoryReset
                next = adopted ? MachineRecord(known: now, parts: parts, knownSince: time) : record
                next.event = nil
                return (next, .resolved(open, adopted: adopted))
            }
            var kept = open
            kept.detail = detail
            if kept.restore == .pending, policy != .restore {
                kept.restore = .withheld
                kept.note = "the replacement policy is no longer restore"
            }
            next.event = kept
            if kept.restore == .pending { return (next, .restore(kept)) }
            return (next, kept == open ? .none : .updated(kept))
        }
        (event.restore, event.restorePages, event.note) = restore(kind: kind, detail: detail, policy: policy, pages: pages)
        next.event = event
        return (next, event.restore == .pending ? .restore(event) : .noticed(event))
    }

    /// The finding a verdict is (nil: unreadable, first seen, same and conforming).
    public static func finding(_ verdict: MachineVerdict) -> (kind: MachineEvent.Kind, detail: [String])? {
        switch verdict {
        case .unreadable, .firstSeen, .sameAndConforming: return nil
        case .replaced(let changed): return (.replaced, changed)
        case .factoryReset(let reset): return (.factoryReset, reset)
        case .anotherModel(let differs): return (.anotherModel, differs)
        case .changedElsewhere(let registers):
            return (.changedElsewhere, registers.keys.sorted().map { "\($0): " + registers[$0]!.joined(separator: ", ") })
        }
    }

    /// Why a restore due for `event` must not run now that the machine was read again, holding it (nil: it may):
    /// the machine must be the one the finding was about, in the same state, and still untouched.
    public static func recheck(
        _ event: MachineEvent, verdict: MachineVerdict, now: MachineFingerprint?, pages: [PageStanding]
    ) -> String? {
        guard let now, let (kind, _) = finding(verdict) else { return "the machine is no longer \(event.kind.rawValue)" }
        guard kind == event.kind, now == event.fingerprint else {
            return "the machine changed since it was found \(event.kind.rawValue): now \(kind.rawValue)"
        }
        for page in pages where event.restorePages.contains(page.pageId) {
            if page.marked { return "page \(page.pageId) is marked by an interrupted or failed replay" }
            if !page.setElsewhere.isEmpty {
                return "page \(page.pageId) holds values set elsewhere: \(page.setElsewhere.joined(separator: ", "))"
            }
        }
        return nil
    }

    /// Whether the finding is settled by replays since it was noticed: every page in its scope (a reset: the reset
    /// pages; a replaced or another-model machine: every page) that has a verified version got it (or another) again
    /// and none is marked. A replaced machine with no such page is settled at once; another model never by that, and
    /// a change elsewhere only by conforming again (it is never restored).
    static func replayedSince(_ event: MachineEvent, _ pages: [PageStanding]) -> Bool {
        guard event.kind != .changedElsewhere else { return false }
        let scope = pages.filter { event.kind != .factoryReset || event.detail.contains($0.pageId) }
        let applied = scope.filter { $0.versionId != nil || $0.marked }
        guard !applied.isEmpty else { return event.kind == .replaced }
        return applied.allSatisfy { !$0.marked && ($0.appliedAt.map { $0 >= event.noticedAt } ?? false) }
    }

    /// Whether a new finding is restored, which pages, and why not.
    static func restore(kind: MachineEvent.Kind, detail: [String], policy: ReplacementPolicy, pages: [PageStanding])
        -> (MachineEvent.Restore, [String], String?)
    {
        guard kind == .replaced || kind == .factoryReset else {
            return (.none, [], kind == .anotherModel ? "never written to: another model" : nil)
        }
        let scope = pages.filter { kind == .replaced || detail.contains($0.pageId) }
        let restorable = scope.filter { $0.versionId != nil }.map(\.pageId)
        guard policy == .restore else { return (.none, restorable, nil) }
        if let marked = scope.first(where: \.marked) {
            return (.withheld, restorable, "page \(marked.pageId) is marked by an interrupted or failed replay")
        }
        if let touched = scope.first(where: { !$0.setElsewhere.isEmpty }) {
            return (
                .withheld, restorable,
                "page \(touched.pageId) holds values set elsewhere: \(touched.setElsewhere.joined(separator: ", "))"
            )
        }
        guard !restorable.isEmpty else { return (.none, [], "no page has a verified version to restore") }
        return (.pending, restorable, nil)
    }

    /// The record after a restore job was started for `event` (never a second for the same finding).
    public static func started(_ record: MachineRecord, job: String) -> MachineRecord {
        var next = record
        next.event?.restore = .started
        next.event?.restoreJob = job
        return next
    }
}
