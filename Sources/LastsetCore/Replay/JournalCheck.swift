import Foundation

/// One register read back: its words (hex) or nil when the read failed.
public struct JournalCheck: Codable, Sendable, Hashable {
    public var registerId: String
    /// The words read (hex, wire order); nil when they could not be read.
    public var data: String?
    /// Why the read failed.
    public var message: String?

    /// Sets every field.
    public init(registerId: String, data: String?, message: String? = nil) {
        self.registerId = registerId
        self.data = data
        self.message = message
    }
}
