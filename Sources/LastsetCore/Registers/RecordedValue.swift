import Foundation
import LastsetFormats

/// One register's value as a record keeps it: a template's identity registers, and the values a device
/// state expects a machine to hold. The raw words (hex) are authoritative; `value` is their readable view.
public struct RecordedValue: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Raw bytes, hex (authoritative).
    public var valueData: String
    /// The readable view of valueData.
    public var value: RegisterValue
    /// Where the value came from and its band (nil: the template's, compared exactly).
    public var origin: EntryOrigin?

    /// Sets every field.
    public init(registerId: String, address: Int, valueData: String, value: RegisterValue, origin: EntryOrigin? = nil) {
        self.origin = origin
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
    }

    /// The value a template entry writes.
    public init(_ entry: TemplateEntry) {
        self.init(registerId: entry.registerId, address: entry.address, valueData: entry.valueData, value: entry.value)
    }

    /// Whether a target's register holds what was recorded: compared as words, so how the hex is spelled
    /// (`5052532D`, or `5052532d` from another tool's file) never matters; an odd or non-hex `valueData`
    /// matches nothing.
    public func isHeld(by words: [UInt16]) -> Bool {
        valueData.utf8.count == words.count * 4 && [UInt16](valueDataHex: valueData) == words
    }
}

extension RecordedValue: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = RecordedValue(registerId: "", address: 0, valueData: "", value: .unsigned(0))

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("origin", &r.origin)
        try f.field("registerId", &r.registerId)
        try f.field("value", &r.value)
        try f.field("valueData", &r.valueData)
    }
}
