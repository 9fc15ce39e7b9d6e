import Foundation
import LastsetFormats

/// One identity register's value.
public struct IdentityValue: Codable, Sendable, Hashable {
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
