import LastsetFormats

/// The whole of `/etc/lastset/lastset.json`.
public struct LastsetConfig: Codable, Sendable, Hashable {
    /// Config schema version (1).
    public var version: Int
    public var api: APIConfig?
    /// Templates kept per page (default 20).
    public var history: Int?
    /// As-found records kept per device and page (default 100; docs/AS-FOUND.md).
    public var asFoundHistory: Int?
    /// How much of the audit log the database keeps (nil: every record).
    public var audit: AuditConfig?
    public var devices: [DeviceConfig]
    public var pages: [PageDefinition]
    /// Templates and audit records shared with other hosts through a git hub; nil: this host alone.
    public var fleet: FleetConfig?
    /// Per-device and per-group values of listed registers and per-register tolerances (docs/OVERRIDES.md); nil: none.
    public var overrides: OverridesConfig?
    /// Protected pages and registers, and whether every write needs a reason (docs/CHANGE-CONTROL.md); nil: none.
    public var changeControl: ChangeControlConfig?

    public init(
        version: Int = 1, api: APIConfig? = nil, history: Int? = nil, audit: AuditConfig? = nil, devices: [DeviceConfig],
        pages: [PageDefinition], fleet: FleetConfig? = nil, overrides: OverridesConfig? = nil,
        changeControl: ChangeControlConfig? = nil, asFoundHistory: Int? = nil
    ) {
        self.asFoundHistory = asFoundHistory
        self.changeControl = changeControl
        self.overrides = overrides
        self.version = version
        self.audit = audit
        self.fleet = fleet
        self.api = api
        self.history = history
        self.devices = devices
        self.pages = pages
    }

    /// Number of templates kept per page.
    public var historyLimit: Int { history ?? 20 }

    /// As-found records kept per device and page.
    public var asFoundLimit: Int { asFoundHistory ?? 100 }

    /// The page with this id.
    public func page(_ id: String) -> PageDefinition? { pages.first { $0.id == id } }
    /// The device with this id.
    public func device(_ id: String) -> DeviceConfig? { devices.first { $0.id == id } }
}
