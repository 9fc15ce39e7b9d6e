import Foundation
import LastsetFormats

/// A register that makes a capture invalid: what was read and which rule it broke.
public struct CaptureProblem: Sendable, Hashable, CustomStringConvertible {
    public var registerId: String
    public var address: Int
    /// Raw bytes as read (hex); nil when the read failed.
    public var valueData: String?
    /// Decoded value; nil when the read failed.
    public var value: RegisterValue?
    /// The rule broken, or the read error.
    public var rule: String
    /// Whether the device failed to answer or answered a bad value.
    public var cause: Cause

    /// Why a register made the capture invalid.
    public enum Cause: String, JSONFieldValue, Sendable, Hashable {
        /// The register could not be read (the device's health suffers).
        case readFailed
        /// An identity register could not be read.
        case identityReadFailed
        /// The value read breaks a rule of the register.
        case invalidValue
    }

    public init(
        registerId: String, address: Int, valueData: String?, value: RegisterValue?, rule: String, cause: Cause = .invalidValue
    ) {
        self.cause = cause
        self.registerId = registerId
        self.address = address
        self.valueData = valueData
        self.value = value
        self.rule = rule
    }

    public var description: String {
        "\(registerId) @\(address): \(rule)" + (value.map { " (value \($0), raw \(valueData ?? ""))" } ?? "")
    }
}

/// What a capture did.
public struct CaptureReport: Sendable, Hashable {
    public var pageId: String
    public var device: String
    /// True when a template was archived.
    public var archived: Bool
    /// The archived version's number, when archived.
    public var version: Int?
    /// The archived version's id (`3`, or `<host>-<n>` in a fleet), when archived.
    public var versionId: String?
    public var pageHash: String
    public var entryCount: Int
    public var skipped: [SkippedRegister]
    /// Every register that made the capture invalid (empty when archived).
    public var problems: [CaptureProblem]
    /// Read requests issued.
    public var requests: Int
    /// Set when the archive itself failed (the previous template stays current).
    public var error: String?
    /// True when the capture held exactly what the latest version holds: nothing archived, `version` is
    /// that latest version ("unchanged, still vN").
    public var unchanged: Bool?

    public init(
        pageId: String, device: String, archived: Bool = false, version: Int? = nil, pageHash: String, entryCount: Int = 0,
        skipped: [SkippedRegister] = [], problems: [CaptureProblem] = [], requests: Int = 0, error: String? = nil
    ) {
        self.pageId = pageId
        self.device = device
        self.archived = archived
        self.version = version
        self.versionId = version.map(String.init)
        self.pageHash = pageHash
        self.entryCount = entryCount
        self.skipped = skipped
        self.problems = problems
        self.requests = requests
        self.error = error
    }
}

extension CaptureProblem: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = CaptureProblem(registerId: "", address: 0, valueData: nil, value: nil, rule: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("cause", &r.cause)
        try f.field("registerId", &r.registerId)
        try f.field("rule", &r.rule)
        try f.field("value", &r.value)
        try f.field("valueData", &r.valueData)
    }
}

extension CaptureReport: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = CaptureReport(pageId: "", device: "", pageHash: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("archived", &r.archived)
        try f.field("device", &r.device)
        try f.field("entryCount", &r.entryCount)
        try f.field("error", &r.error)
        try f.field("pageHash", &r.pageHash)
        try f.field("pageId", &r.pageId)
        try f.lines("problems", &r.problems)
        try f.field("requests", &r.requests)
        try f.field("skipped", &r.skipped)
        try f.field("unchanged", &r.unchanged)
        try f.field("version", &r.version)
        try f.field("versionId", &r.versionId)
    }
}
