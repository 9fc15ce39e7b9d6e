import LastsetCore
import ModbusLink

/// A device a job talks to: a configured one, or an ad-hoc endpoint for a machine not yet configured.
public struct DeviceTarget: Sendable {
    /// Configured device id; nil for an ad-hoc endpoint.
    public var deviceId: String?
    public var endpoint: Endpoint
    public var unit: Int
    public var limits: DeviceLimits
    /// The connection (shared by every unit on the same TCP peer or serial line).
    public var connection: ModbusConnection

    public init(deviceId: String?, endpoint: Endpoint, unit: Int, limits: DeviceLimits, connection: ModbusConnection) {
        self.deviceId = deviceId
        self.endpoint = endpoint
        self.unit = unit
        self.limits = limits
        self.connection = connection
    }

    /// The device id, or the endpoint and unit for an ad-hoc target.
    public var label: String { deviceId ?? "\(endpoint) unit \(unit)" }
}
