import Foundation

/// Where one device stands with respect to a page's latest template.
public enum RolloutStanding: String, Codable, Sendable, Hashable, CaseIterable {
    /// Holds the latest version (and has not been seen to drift).
    case latest
    /// Holds an older version, and the latest would write other values to it (`RolloutDevice.changes`).
    case older
    /// Holds an older version whose effective values on this device are the latest's (its overrides cover every
    /// register the master changed, or the master's values did not change): nothing to write.
    case equivalent
    /// Was applied a version, and polling shows registers changed since.
    case drifted
    /// An interrupted replay may have left it partially written.
    case unverified
    /// A failed replay changed some of its registers: it holds no version (until a replay succeeds).
    case partiallyWritten
    /// No version was ever applied to it (as far as this daemon knows).
    case neverApplied
}

/// One device in a page's rollout view.
public struct RolloutDevice: Codable, Sendable, Hashable {
    public var device: String
    public var standing: RolloutStanding
    /// The id of the version it holds (nil: never applied).
    public var appliedVersion: String?
    /// Its conformance (state, drift, why unknown).
    public var conformance: PageConformance
    /// The registers the latest version's effective values would change on it (`EffectiveTemplate.changes`);
    /// nil when it holds no version or the latest cannot be read.
    public var changes: [String]?

    /// Sets every field.
    public init(
        device: String, standing: RolloutStanding, appliedVersion: String?, conformance: PageConformance,
        changes: [String]? = nil
    ) {
        self.changes = changes
        self.device = device
        self.standing = standing
        self.appliedVersion = appliedVersion
        self.conformance = conformance
    }
}

/// `GET /v1/pages/{page}/rollout`: which configured devices hold the latest template of a page.
public struct Rollout: Codable, Sendable, Hashable {
    public var pageId: String
    /// The id of the latest archived version (`3`, `line-7-3`; nil: none archived).
    public var latestVersion: String?
    /// Every configured device with the page, in config order.
    public var devices: [RolloutDevice]
    /// How many devices stand where (every standing, zeros included).
    public var counts: [String: Int]

    /// Sets every field.
    public init(pageId: String, latestVersion: String?, devices: [RolloutDevice]) {
        self.pageId = pageId
        self.latestVersion = latestVersion
        self.devices = devices
        var counts: [String: Int] = [:]
        for s in RolloutStanding.allCases { counts[s.rawValue] = devices.filter { $0.standing == s }.count }
        self.counts = counts
    }

    /// A device's standing from its conformance, its page's mark (nil: none) and the latest version. A page a
    /// failed replay partially wrote holds no version, whatever was recorded before.
    /// `changes`: the registers the latest's effective values would change (nil: not known); an older version
    /// with none is `equivalent`.
    public static func standing(
        _ c: PageConformance, latestVersion: String?, mark: UnverifiedMark.Reason?, changes: [String]? = nil
    ) -> RolloutStanding {
        switch mark {
        case .failed?: return .partiallyWritten
        case .interrupted?: return .unverified
        case nil: break
        }
        guard let applied = c.applied else { return .neverApplied }
        if c.state == .drifted { return .drifted }
        if applied.versionId == latestVersion { return .latest }
        return changes?.isEmpty == true ? .equivalent : .older
    }
}
