import Foundation

/// One register's value as a template wrote it.
public struct ExpectedValue: Codable, Sendable, Hashable {
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
