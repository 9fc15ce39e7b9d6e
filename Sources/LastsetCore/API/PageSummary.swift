import Foundation
import LastsetFormats

/// `GET /v1/pages` (one element).
public struct PageSummary: Codable, Sendable, Hashable {
    public var id: String
    public var title: String?
    public var registers: Int
    /// Devices configured with this page.
    public var devices: [String]
    /// Latest archived version's number, nil when none.
    public var latestVersion: Int?
    /// Latest archived version's id (`3`, or `<host>-<n>` in a fleet), nil when none.
    public var latestVersionId: String?
    /// Set when the latest template cannot be used.
    public var templateProblem: String?
    public var hash: String
    /// The page's `description`, when it has one.
    public var description: String?

    public init(
        id: String, title: String?, registers: Int, devices: [String], latestVersion: Int?, templateProblem: String?,
        hash: String,
        latestVersionId: String? = nil, description: String? = nil
    ) {
        self.latestVersionId = latestVersionId ?? latestVersion.map(String.init)
        self.description = description
        self.id = id
        self.title = title
        self.registers = registers
        self.devices = devices
        self.latestVersion = latestVersion
        self.templateProblem = templateProblem
        self.hash = hash
    }
}
