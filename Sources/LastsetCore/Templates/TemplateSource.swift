import Foundation
import LastsetFormats

/// The device a template was captured from.
public struct TemplateSource: Sendable, Hashable {
    /// Configured device id, nil for an ad-hoc endpoint.
    public var deviceId: String?
    public var endpoint: String
    public var unit: Int
    /// Identity register values read at capture time, in page order.
    public var identity: [RecordedValue]

    public init(deviceId: String?, endpoint: String, unit: Int, identity: [RecordedValue]) {
        self.deviceId = deviceId
        self.endpoint = endpoint
        self.unit = unit
        self.identity = identity
    }
}

extension TemplateSource: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = TemplateSource(deviceId: nil, endpoint: "", unit: 0, identity: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("deviceId", &r.deviceId)
        try f.field("endpoint", &r.endpoint)
        try f.field("identity", &r.identity)
        try f.field("unit", &r.unit)
    }
}
