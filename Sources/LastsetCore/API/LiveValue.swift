import Foundation
import LastsetFormats

/// A register's value as last polled.
public struct LiveValue: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var valueData: String?
    public var value: RegisterValue?
    public var lastDate: Date?
    /// Why the last read of this register failed.
    public var error: String?

    public init(registerId: String, address: Int, valueData: String?, value: RegisterValue?, lastDate: Date?, error: String?) {
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
        self.lastDate = lastDate
        self.error = error
    }
}
