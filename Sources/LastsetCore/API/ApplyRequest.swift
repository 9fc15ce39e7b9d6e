import Foundation
import LastsetFormats

/// `POST /v1/pages/{page}/apply` body: a configured device, or an ad-hoc endpoint and unit.
public struct ApplyRequest: Codable, Sendable, Hashable {
    public var device: String?
    /// `tcp://host:port` or `rtu:///dev/…` of a machine not in the config.
    public var endpoint: String?
    /// Unit id for an ad-hoc endpoint (default 1).
    public var unit: Int?
    /// Template version (`3`, `"3"`, `"line-7-3"`, `"latest"`); latest when absent.
    public var version: TemplateVersionRef?
    public var dryRun: Bool?
    public var onError: OnError?
    /// The version id the operator confirmed (the dry run's `templateVersionId`): 409 `version_changed` when the
    /// request resolves to another (`VersionPin`).
    public var expectVersion: String?
    /// Why (recorded with the write; required under `changeControl.reasonRequired`).
    public var reason: String?

    public init(
        device: String? = nil, endpoint: String? = nil, unit: Int? = nil, version: TemplateVersionRef? = nil, dryRun: Bool? = nil,
        onError: OnError? = nil, expectVersion: String? = nil, reason: String? = nil
    ) {
        self.reason = reason
        self.expectVersion = expectVersion
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.version = version
        self.dryRun = dryRun
        self.onError = onError
    }
}
