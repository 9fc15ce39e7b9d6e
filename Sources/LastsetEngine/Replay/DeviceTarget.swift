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
    /// What the endpoint resolves to (the machine the connection reaches).
    public var machine: MachineKey
    /// A gateway: other units behind it are other devices (see `JobLock`).
    public var gateway: Bool
    /// On a serial line: what the configured devices on it (the config of the target's generation) declare
    /// its settings to be. A job asking for others is refused before a frame (`LineAccess`).
    public var lineDeclarations: [LineAccess.Declaration]

    /// A target; `machine` defaults to the endpoint's unresolved text (tests that build connections by hand).
    public init(
        deviceId: String?, endpoint: Endpoint, unit: Int, limits: DeviceLimits, connection: ModbusConnection,
        machine: MachineKey? = nil, gateway: Bool = false, lineDeclarations: [LineAccess.Declaration] = []
    ) {
        self.gateway = gateway
        self.lineDeclarations = lineDeclarations
        self.deviceId = deviceId
        self.endpoint = endpoint
        self.unit = unit
        self.limits = limits
        self.connection = connection
        self.machine = machine ?? .unresolved(endpoint)
    }

    /// The device id, or the endpoint and unit for an ad-hoc target.
    public var label: String { deviceId ?? "\(endpoint) unit \(unit)" }

    /// The job lock: the resolved machine, plus the unit on a serial line or behind a gateway.
    public var lock: JobLock { JobLock(machine: machine, unit: unit, gateway: gateway) }
}

extension DeviceTarget {
    /// This device's timing, passed with every request (devices sharing a serial line keep their own), and on a
    /// serial line the framing the job was let onto the line with.
    var linkOptions: LinkOptions { LinkOptions(limits, line: endpoint.lineSettings) }
}
