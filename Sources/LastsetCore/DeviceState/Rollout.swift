import Foundation

/// Where one device stands with respect to a page's latest template.
public enum RolloutStanding: String, Codable, Sendable, Hashable, CaseIterable {
    /// Holds the latest version (and has not been seen to drift).
    case latest
    /// Holds an older version.
    case older
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

    /// Sets every field.
    public init(device: String, standing: RolloutStanding, appliedVersion: String?, conformance: PageConformance) {
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
    public static func standing(_ c: PageConformance, latestVersion: String?, mark: UnverifiedMark.Reason?)
        -> RolloutStanding
    {
        switch mark {
        case .failed?: return .partiallyWritten
        case .interrupted?: return .unverified
        case nil: break
        }
        guard let applied = c.applied else { return .neverApplied }
        if c.state == .drifted { return .drifted }
        return applied.versionId == latestVersion ? .latest : .older
    }
}
