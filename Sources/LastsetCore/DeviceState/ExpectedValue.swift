import Foundation
import LastsetFormats

/// One register's value as a template wrote it.
public struct ExpectedValue: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Raw bytes, hex (authoritative).
    public var valueData: String
    /// The readable view of valueData.
    public var value: RegisterValue

    /// Sets every field.
    public init(registerId: String, address: Int, valueData: String, value: RegisterValue) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
    }

    /// The value a template entry writes.
    public init(_ entry: TemplateEntry) {
        self.init(registerId: entry.registerId, address: entry.address, valueData: entry.valueData, value: entry.value)
    }
}

extension ExpectedValue: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = ExpectedValue(registerId: "", address: 0, valueData: "", value: .unsigned(0))

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("registerId", &r.registerId)
        try f.field("value", &r.value)
        try f.field("valueData", &r.valueData)
    }
}
