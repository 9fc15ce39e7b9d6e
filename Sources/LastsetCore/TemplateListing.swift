import Foundation

/// One archived version of a page's template, as listed (a corrupt file is listed with its reason).
public struct TemplateListing: Codable, Sendable, Hashable {
    public var pageId: String
    public var version: Int
    public var capturedAt: Date?
    public var sourceDevice: String?
    public var entryCount: Int?
    public var checksumOK: Bool
    /// Why the file cannot be used, when it cannot.
    public var problem: String?

    public init(
        pageId: String, version: Int, capturedAt: Date?, sourceDevice: String?, entryCount: Int?, checksumOK: Bool,
        problem: String?
    ) {
        self.pageId = pageId
        self.version = version
        self.capturedAt = capturedAt
        self.sourceDevice = sourceDevice
        self.entryCount = entryCount
        self.checksumOK = checksumOK
        self.problem = problem
    }
}
