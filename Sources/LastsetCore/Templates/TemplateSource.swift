import Foundation
import LastsetFormats

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
