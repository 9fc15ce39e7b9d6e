import LastsetFormats

/// One controller the daemon talks to.
public struct DeviceConfig: Codable, Sendable, Hashable {
    public var id: String
    /// `tcp://host:port` or `rtu:///dev/tty…?baud=…&parity=…&data=…&stop=…`.
    public var endpoint: String
    /// Modbus unit id (0...247).
    public var unit: Int
    /// Ids of the pages this device has.
    public var pages: [String]?
    /// Poll interval, e.g. "10s"; "0s" or absent disables polling.
    public var poll: String?
    public var quirks: Quirks?
    /// The "not set" convention of this device's pages that declare none.
    public var unsetStyle: UnsetStyle?
    /// A TCP gateway to several devices, one per unit id (jobs on other units may run at once); absent or
    /// false: a plain TCP device that answers every unit, locked as a whole (`JobLock`).
    public var gateway: Bool?
    /// What to do when the machine behind it is replaced or back at factory values (absent: `off`).
    public var replacement: ReplacementPolicy?
    /// The registers that tell one machine of its model from another (a serial number): `serialNumber` entries with
    /// `registerId`.
    public var serialNumber: [IdentityRegister]?
    /// How often each page is read as found and kept when something changed, e.g. "1h"; "0" or absent: no scheduled
    /// backup (docs/AS-FOUND.md).
    public var backup: String?
    /// The FC43 objects that do (`serialNumber` entries with `object`, a private object such as `0x80`).
    public var serialNumberObjects: [IdentityObject]?

    public init(
        id: String, endpoint: String, unit: Int, pages: [String]? = nil, poll: String? = nil, quirks: Quirks? = nil,
        unsetStyle: UnsetStyle? = nil, gateway: Bool? = nil, replacement: ReplacementPolicy? = nil,
        serialNumber: [IdentityRegister]? = nil, serialNumberObjects: [IdentityObject]? = nil, backup: String? = nil
    ) {
        self.backup = backup
        self.replacement = replacement
        self.serialNumber = serialNumber
        self.serialNumberObjects = serialNumberObjects
        self.unsetStyle = unsetStyle
        self.gateway = gateway
        self.id = id
        self.endpoint = endpoint
        self.unit = unit
        self.pages = pages
        self.poll = poll
        self.quirks = quirks
    }

    /// Resolved limits.
    public var limits: DeviceLimits { DeviceLimits(quirks) }
}
