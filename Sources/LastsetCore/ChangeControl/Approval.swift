import Foundation
import LastsetFormats

/// One person's signature on a change request: name, time, meaning and reason.
public struct Approval: Sendable, Hashable {
    /// The principal (`token:NAME`, `uid:N(user)`).
    public var who: String
    public var time: Date
    public var meaning: SignatureMeaning
    public var reason: String

    /// Sets every field.
    public init(who: String, time: Date, meaning: SignatureMeaning, reason: String) {
        self.who = who
        self.time = time
        self.meaning = meaning
        self.reason = reason
    }
}

extension Approval: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = Approval(who: "", time: .distantPast, meaning: .approval, reason: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("meaning", &r.meaning)
        try f.field("reason", &r.reason)
        try f.field("time", &r.time)
        try f.field("who", &r.who)
    }
}
