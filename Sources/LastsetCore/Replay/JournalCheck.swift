import Foundation
import LastsetFormats

/// One register read back: its words (hex) or nil when the read failed.
public struct JournalCheck: Sendable, Hashable {
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

extension JournalCheck: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = JournalCheck(registerId: "", data: nil)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("data", &r.data)
        try f.field("message", &r.message)
        try f.field("registerId", &r.registerId)
    }
}
