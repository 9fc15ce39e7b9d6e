import Foundation
import LastsetFormats

/// One identity register's value.
public struct IdentityValue: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Raw bytes as read, hex.
    public var valueData: String
    public var value: RegisterValue

    public init(registerId: String, address: Int, valueData: String, value: RegisterValue) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
    }

    /// Whether a target's identity register holds what the source held: compared as words, so how the hex
    /// is spelled (`5052532D`, or `5052532d` from another tool's file) never matters; an odd or
    /// non-hex `valueData` matches nothing.
    public func isHeld(by words: [UInt16]) -> Bool {
        valueData.utf8.count == words.count * 4 && [UInt16](valueDataHex: valueData) == words
    }
}

extension IdentityValue: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = IdentityValue(registerId: "", address: 0, valueData: "", value: .unsigned(0))

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("registerId", &r.registerId)
        try f.field("value", &r.value)
        try f.field("valueData", &r.valueData)
    }
}
