import Foundation
import LastsetFormats

/// `POST /v1/devices/{id}/apply` body: every page of a configured device, in config order, in one job.
public struct ApplyAllRequest: Codable, Sendable, Hashable {
    /// Plan and diff every page; nothing is written.
    public var dryRun: Bool?
    /// Within each page (as for one page's apply).
    public var onError: OnError?
    /// After a page that does not succeed.
    public var onPageFailure: PageFailurePolicy?
    /// Page id → the version id the operator confirmed for it (the dry run's `versionId`): 409
    /// `version_changed`, nothing written, when any page's latest is another by the time of the write.
    public var expectVersions: [String: String]?
    /// Why (recorded with every page's write; required under `changeControl.reasonRequired`).
    public var reason: String?
    /// Which version of each page: the latest (default), or the one last verified on the device (a restore, as the
    /// replacement policy's: `RestoreVersion`).
    public var versions: ApplyAllVersions?

    /// Sets every field.
    public init(
        dryRun: Bool? = nil, onError: OnError? = nil, onPageFailure: PageFailurePolicy? = nil,
        expectVersions: [String: String]? = nil, reason: String? = nil, versions: ApplyAllVersions? = nil
    ) {
        self.versions = versions
        self.reason = reason
        self.expectVersions = expectVersions
        self.dryRun = dryRun
        self.onError = onError
        self.onPageFailure = onPageFailure
    }
}

/// Which version of each page a whole-machine apply writes.
public enum ApplyAllVersions: String, Codable, Sendable, Hashable, CaseIterable {
    /// Each page's latest version (the default).
    case latest
    /// Each page's version last applied and verified on the device (`RestoreVersion.choose`: the replacement
    /// policy's choice); a page with none is `nothingToRestore`.
    case lastVerified
}
