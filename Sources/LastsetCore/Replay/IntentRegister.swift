import Foundation
import LastsetFormats

/// One register a replay intends to write, as journaled before the first write frame.
public struct IntentRegister: Sendable, Hashable {
    public var registerId: String
    public var address: Int
    public var length: Int
    /// The template's value (decoded) and words (hex, wire order).
    public var expected: RegisterValue
    public var expectedData: String
    /// The target's value before the replay, when the snapshot read it.
    public var before: RegisterValue?
    public var beforeData: String?
    /// Where the expected value comes from and its band (nil: the template's, exact — a replay without overrides).
    public var origin: EntryOrigin?

    /// Sets every field.
    public init(
        registerId: String, address: Int, length: Int, expected: RegisterValue, expectedData: String,
        before: RegisterValue? = nil, beforeData: String? = nil, origin: EntryOrigin? = nil
    ) {
        self.origin = origin
        self.registerId = registerId
        self.address = address
        self.length = length
        self.expected = expected
        self.expectedData = expectedData
        self.before = before
        self.beforeData = beforeData
    }
}

extension IntentRegister: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = IntentRegister(
        registerId: "", address: 0, length: 0, expected: .unsigned(0), expectedData: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("before", &r.before)
        try f.field("beforeData", &r.beforeData)
        try f.field("expected", &r.expected)
        try f.field("expectedData", &r.expectedData)
        try f.field("length", &r.length)
        try f.field("origin", &r.origin)
        try f.field("registerId", &r.registerId)
    }
}
