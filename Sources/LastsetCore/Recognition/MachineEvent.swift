import Foundation

/// Something a (re)connection found about the machine behind a configured device, open until it is resolved (the
/// original comes back, the pages conform again, or every applied page was replayed since it was noticed).
public struct MachineEvent: Hashable, Sendable, Codable {
    /// Which kind of finding.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// Same model, another instance (serial number, FC43 identity).
        case replaced
        /// Same machine, applied registers back at their "not set" values.
        case factoryReset
        /// Another model, or a revision the pages do not accept: never written to by the policy.
        case anotherModel
        /// Same machine, applied registers changed by someone Lastset does not know.
        case changedElsewhere
    }

    /// What the policy does about it.
    public enum Restore: String, Hashable, Sendable, Codable {
        /// Nothing (policy `notify`, a kind never restored, or nothing to restore).
        case none
        /// A restore is due; it starts as soon as no other job holds the machine.
        case pending
        /// The restore job was started (`restoreJob`): never a second one for this event.
        case started
        /// Not restored automatically (`note` says why).
        case withheld
    }

    /// The kind.
    public var kind: Kind
    /// The identity parts that changed (replaced, another model), the pages (factory reset), `page: registers`
    /// (changed elsewhere).
    public var detail: [String]
    /// The fingerprint read when it was noticed (nil: the same machine as known).
    public var fingerprint: MachineFingerprint
    /// When it was noticed.
    public var noticedAt: Date
    /// What the policy does about it.
    public var restore: Restore
    /// The pages a restore writes (their last verified versions).
    public var restorePages: [String]
    /// The restore job, once started.
    public var restoreJob: String?
    /// Why it is not restored automatically.
    public var note: String?

    /// Sets every field.
    public init(
        kind: Kind, detail: [String], fingerprint: MachineFingerprint, noticedAt: Date, restore: Restore = .none,
        restorePages: [String] = [], restoreJob: String? = nil, note: String? = nil
    ) {
        self.kind = kind
        self.detail = detail
        self.fingerprint = fingerprint
        self.noticedAt = noticedAt
        self.restore = restore
        self.restorePages = restorePages
        self.restoreJob = restoreJob
        self.note = note
    }

    /// Whether it is the same finding as `other` (same kind on the same machine; the detail may have grown).
    public func isSame(as other: MachineEvent) -> Bool { kind == other.kind && fingerprint == other.fingerprint }

    /// One line for the log: `replaced (serial): restoring heating, motion`.
    public var summary: String {
        var text = "\(kind.rawValue) (\(detail.joined(separator: "; ")))"
        switch restore {
        case .pending: text += ": restore of \(restorePages.joined(separator: ", ")) due"
        case .started: text += ": restore job \(restoreJob ?? "?")"
        case .withheld: text += ": not restored automatically: \(note ?? "")"
        case .none: if let note { text += ": \(note)" }
        }
        return text
    }
}

/// What the daemon keeps about the machine behind a configured device: the fingerprint it knows it by, under which
/// parts (a config whose identity changed starts again), and the finding still open. A row of `device_recognition`.
public struct MachineRecord: Hashable, Sendable, Codable {
    /// The fingerprint of the machine Lastset knows as the device.
    public var known: MachineFingerprint?
    /// The parts `known` was read under (`FingerprintPlan.parts`).
    public var parts: [String]
    /// When `known` was recorded.
    public var knownSince: Date?
    /// The open finding.
    public var event: MachineEvent?

    /// Sets every field.
    public init(known: MachineFingerprint? = nil, parts: [String] = [], knownSince: Date? = nil, event: MachineEvent? = nil) {
        self.known = known
        self.parts = parts
        self.knownSince = knownSince
        self.event = event
    }
}
