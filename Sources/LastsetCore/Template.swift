import Foundation

/// What a capture archives for one page: the validated values of a reference machine, in page order.
public struct Template: Codable, Sendable, Hashable {
    /// Format version of this structure.
    public var schemaVersion: Int
    public var pageId: String
    /// `PageDefinition.hash` of the page the template was captured against.
    public var pageHash: String
    /// Archive version number (1, 2, …), assigned when archived.
    public var version: Int
    public var capturedAt: Date
    /// Who asked for the capture (uid or token id).
    public var capturedBy: String?
    public var source: TemplateSource
    /// The values to replay, in page (write) order.
    public var entries: [TemplateEntry]
    /// Registers left out, and why.
    public var skipped: [SkippedRegister]

    /// Current `schemaVersion`.
    public static let currentSchemaVersion = 1

    public init(
        pageId: String, pageHash: String, version: Int, capturedAt: Date, capturedBy: String?,
        source: TemplateSource, entries: [TemplateEntry], skipped: [SkippedRegister]
    ) {
        self.schemaVersion = Template.currentSchemaVersion
        self.pageId = pageId
        self.pageHash = pageHash
        self.version = version
        self.capturedAt = capturedAt
        self.capturedBy = capturedBy
        self.source = source
        self.entries = entries
        self.skipped = skipped
    }
}

/// The device a template was captured from.
public struct TemplateSource: Codable, Sendable, Hashable {
    /// Configured device id, nil for an ad-hoc endpoint.
    public var deviceId: String?
    public var endpoint: String
    public var unit: Int
    /// Identity register values read at capture time, in page order.
    public var identity: [IdentityValue]

    public init(deviceId: String?, endpoint: String, unit: Int, identity: [IdentityValue]) {
        self.deviceId = deviceId
        self.endpoint = endpoint
        self.unit = unit
        self.identity = identity
    }
}

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
}

/// One register's archived value.
public struct TemplateEntry: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// Number of 16-bit registers.
    public var length: Int
    /// Raw bytes as read, hex (authoritative; `value` is a readable view of it).
    public var valueData: String
    public var value: RegisterValue
    /// When valueData was read.
    public var lastDate: Date

    public init(registerId: String, address: Int, length: Int, valueData: String, value: RegisterValue, lastDate: Date) {
        self.registerId = registerId
        self.address = address
        self.length = length
        self.valueData = valueData
        self.value = value
        self.lastDate = lastDate
    }

    /// The words to write, from valueData.
    public var words: [UInt16] { [UInt16](bigEndianBytes: [UInt8](hexString: valueData) ?? []) }
}

/// Why a register is not in a template.
public enum SkipReason: String, Codable, Sendable, Hashable {
    /// Still at its "not set" default.
    case unset
    /// `clone: false` (identity or communication register).
    case notCloned
    /// `access: ro`.
    case readOnly
}

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

extension PageDefinition {
    /// SHA-256 of the page's canonical JSON: changes whenever anything that shapes a template changes.
    public var hash: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(self)) ?? Data()
        return "sha256:" + SHA256.hex(data)
    }
}
