import Foundation

/// `DELETE /v1/pages/{page}/templates/{version}`: what was removed.
public struct VersionDeletion: Codable, Sendable, Hashable {
    public var pageId: String
    /// The removed version's id.
    public var versionId: String
    /// Devices recorded as holding it (only non-empty when the delete was forced).
    public var heldBy: [String]
    /// The latest version after the delete (nil: none left).
    public var latestVersion: String?

    /// Sets every field.
    public init(pageId: String, versionId: String, heldBy: [String], latestVersion: String?) {
        self.pageId = pageId
        self.versionId = versionId
        self.heldBy = heldBy
        self.latestVersion = latestVersion
    }
}
