/// The config's `overrides` section (docs/OVERRIDES.md): named groups of devices, per-device and per-group values
/// of listed registers (in the config and in a CSV the user keeps), and a tolerance per register.
public struct OverridesConfig: Codable, Sendable, Hashable {
    /// Group id → its device ids.
    public var groups: [String: [String]]
    /// Every value, from the config (`values`) then the CSV, in that order.
    public var values: [OverrideEntry]
    /// registerId → band (every device).
    public var tolerances: [String: Tolerance]
    /// The CSV's path as written (relative to the config file).
    public var csv: String?

    /// Sets every field.
    public init(
        groups: [String: [String]] = [:], values: [OverrideEntry] = [], tolerances: [String: Tolerance] = [:],
        csv: String? = nil
    ) {
        self.groups = groups
        self.values = values
        self.tolerances = tolerances
        self.csv = csv
    }

    /// The section's keys.
    static let keys = ["groups", "values", "tolerances", "csv"]

    /// The groups a device belongs to, by id.
    public func groups(of deviceId: String) -> [String] {
        groups.keys.sorted().filter { groups[$0]!.contains(deviceId) }
    }
}

/// One override as written: a device or group, a register, a value, and where it was written.
public struct OverrideEntry: Codable, Sendable, Hashable {
    /// A device id or a group id.
    public var target: String
    public var registerId: String
    public var value: RegisterValue
    /// `overrides.values.press-01.heating.setpoint`, or `overrides.csv line 4` (for messages).
    public var source: String

    /// Sets every field.
    public init(target: String, registerId: String, value: RegisterValue, source: String) {
        self.target = target
        self.registerId = registerId
        self.value = value
        self.source = source
    }
}
