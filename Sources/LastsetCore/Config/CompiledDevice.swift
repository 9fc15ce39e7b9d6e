import LastsetFormats
/// A configured device as the engine uses it: endpoint parsed, limits and durations resolved.
///
/// Built once per config load by `CompiledConfig`; nothing downstream re-parses the endpoint text or
/// the quirks' durations.
public struct CompiledDevice: Sendable, Hashable {
    /// The device id.
    public let id: String
    /// The endpoint, parsed.
    public let endpoint: Endpoint
    /// The endpoint as written in the config (what the API and the audit log show).
    public let endpointText: String
    /// Modbus unit id.
    public let unit: Int
    /// Ids of the pages this device has, in config order.
    public let pageIds: [String]
    /// Poll interval; nil when the device is not polled.
    public let pollInterval: Duration?
    /// The poll setting as written ("0s" when absent).
    public let pollText: String
    /// Scheduled backup interval (as-found records); nil when none.
    public let backupInterval: Duration?
    /// Quirks over the defaults, durations parsed.
    public let limits: DeviceLimits
    /// The device's "not set" convention for pages that declare none (nil: the page's or the default).
    public let unsetStyle: UnsetStyle?
    /// Declared a gateway: units behind it are separate devices (`JobLock`).
    public let gateway: Bool
    /// What is done when the machine behind it is replaced or reset (`off` when not configured).
    public let replacement: ReplacementPolicy
    /// The config entry it was compiled from.
    public let config: DeviceConfig

    /// Compiles a checked device entry; throws when its endpoint or a duration does not parse (the
    /// checker reports those, so this only fails for configs built by hand).
    public init(_ device: DeviceConfig) throws(ConfigErrors) {
        func fail(_ path: String, _ value: String, _ message: String) -> ConfigErrors {
            ConfigErrors(problems: [
                ConfigProblem(file: "", path: "devices[\(device.id)].\(path)", value: value, message: message)
            ])
        }
        do throws(EndpointError) {
            endpoint = try Endpoint.parse(device.endpoint)
        } catch {
            throw fail("endpoint", "\"\(device.endpoint)\"", error.reason)
        }
        var interval: Duration?
        if let text = device.poll {
            guard let d = DurationText.parse(text) else { throw fail("poll", "\"\(text)\"", "not a duration") }
            interval = d > .zero ? d : nil
        }
        var backup: Duration?
        if let text = device.backup {
            guard let d = DurationText.parse(text) else { throw fail("backup", "\"\(text)\"", "not a duration") }
            backup = d > .zero ? d : nil
        }
        for text in [device.quirks?.requestDelay, device.quirks?.timeout].compactMap({ $0 }) where DurationText.parse(text) == nil
        {
            throw fail("quirks", "\"\(text)\"", "not a duration")
        }
        id = device.id
        endpointText = device.endpoint
        unit = device.unit
        pageIds = device.pages ?? []
        pollInterval = interval
        pollText = device.poll ?? "0s"
        backupInterval = backup
        limits = DeviceLimits(device.quirks)
        unsetStyle = device.unsetStyle
        gateway = device.gateway ?? false
        replacement = device.replacement ?? .off
        config = device
    }

    /// Whether the device has the page.
    public func has(page id: String) -> Bool { pageIds.contains(id) }
}
