import Foundation
import LastsetFormats

/// A register left out of a template.
public struct SkippedRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var reason: SkipReason

    public init(registerId: String, address: Int, reason: SkipReason) {
        self.registerId = registerId
        self.address = address
        self.reason = reason
    }
}
