import Foundation
import LastsetFormats

/// A register left out of a template.
public struct SkippedRegister: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var reason: SkipReason

    public init(registerId: String, address: Int, reason: SkipReason) {
        self.registerId = registerId
        self.address = address
        self.reason = reason
    }
}

extension SkippedRegister: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = SkippedRegister(registerId: "", address: 0, reason: .unset)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("reason", &r.reason)
        try f.field("registerId", &r.registerId)
    }
}
