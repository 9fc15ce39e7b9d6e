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

    /// Sets every field.
    public init(
        dryRun: Bool? = nil, onError: OnError? = nil, onPageFailure: PageFailurePolicy? = nil,
        expectVersions: [String: String]? = nil, reason: String? = nil
    ) {
        self.reason = reason
        self.expectVersions = expectVersions
        self.dryRun = dryRun
        self.onError = onError
        self.onPageFailure = onPageFailure
    }
}
