/// The checked config, compiled: what the registry, the poller, capture and replay consume.
///
/// `ConfigLoader` checks the text (every problem with its path) and compiles the result: each device
/// with its parsed `Endpoint`, limits and durations; each page with its hash, registerId index and
/// per-register eligibility. Nothing downstream re-parses config text.
public struct CompiledConfig: Sendable {
    /// The typed config it was compiled from (for listings and the API section).
    public let source: LastsetConfig
    /// Devices in config order.
    public let devices: [CompiledDevice]
    /// Pages in config order, under their own (or the default) "not set" convention.
    public let pages: [CompiledPage]
    private let deviceIndex: [String: Int]
    private let pageIndex: [String: Int]
    /// Pages recompiled under a device's `unsetStyle` (only for devices that declare one and pages
    /// that do not): device id → page id → page.
    private let devicePages: [String: [String: CompiledPage]]

    /// Compiles a config; throws when a device cannot be compiled (only for configs not built by
    /// `ConfigLoader`, whose checker reports those problems first).
    public init(_ config: LastsetConfig) throws(ConfigErrors) {
        source = config
        var devices: [CompiledDevice] = []
        var problems: [ConfigProblem] = []
        for d in config.devices {
            do throws(ConfigErrors) {
                devices.append(try CompiledDevice(d))
            } catch {
                problems += error.problems
            }
        }
        guard problems.isEmpty else { throw ConfigErrors(problems: problems) }
        self.devices = devices
        let overrides = config.overrides ?? OverridesConfig()
        pages = config.pages.map { CompiledPage($0, layer: Self.layer(of: $0, device: nil, overrides)) }
        deviceIndex = Dictionary(devices.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        pageIndex = Dictionary(config.pages.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        var perDevice: [String: [String: CompiledPage]] = [:]
        for d in devices {
            for id in d.pageIds {
                guard let page = config.page(id) else { continue }
                let style = page.unsetStyle == nil && d.unsetStyle != .maximum ? d.unsetStyle : nil
                let layer = Self.layer(of: page, device: d, overrides)
                guard style != nil || layer.overridesValues else { continue }
                perDevice[d.id, default: [:]][id] = CompiledPage(page, deviceStyle: style, layer: layer)
            }
        }
        devicePages = perDevice
    }

    /// The layer of `page` on `device` (nil: the page's own, tolerances only): the device's values and its
    /// groups' for the page's registers, encoded by the rules the checker applied (`OverrideRules`).
    static func layer(of page: PageDefinition, device: CompiledDevice?, _ overrides: OverridesConfig) -> OverrideLayer {
        var layer = OverrideLayer()
        for r in page.registers {
            if let t = overrides.tolerances[r.registerId] { layer.tolerances[r.registerId] = t }
        }
        guard let device, !overrides.values.isEmpty else { return layer }
        let groups = Set(overrides.groups(of: device.id))
        let style = page.unsetStyle ?? device.unsetStyle ?? .maximum
        let onPage = Dictionary(page.registers.enumerated().map { ($1.registerId, $0) }, uniquingKeysWith: { a, _ in a })
        for e in overrides.values {
            let isDevice = e.target == device.id
            guard isDevice || groups.contains(e.target), let at = onPage[e.registerId] else { continue }
            let register = CompiledRegister(page.registers[at], position: at, style: style)
            guard case .success(let words) = OverrideRules.words(e.value, for: register) else { continue }
            let value = OverrideValue(
                words: words, value: RegisterCodec.decode(words, as: register.definition),
                origin: isDevice ? .device(e.target) : .group(e.target))
            if isDevice { layer.device[e.registerId] = value } else { layer.group[e.registerId] = value }
        }
        return layer
    }

    /// Templates kept per page.
    public var historyLimit: Int { source.historyLimit }
    /// The API section.
    public var api: APIConfig? { source.api }

    /// The device with this id.
    public func device(_ id: String) -> CompiledDevice? { deviceIndex[id].map { devices[$0] } }
    /// The page with this id.
    public func page(_ id: String) -> CompiledPage? { pageIndex[id].map { pages[$0] } }
    /// The page with this id as it applies to a device (under the device's `unsetStyle`, when the
    /// page declares none).
    public func page(_ id: String, on deviceId: String?) -> CompiledPage? {
        if let deviceId, let page = devicePages[deviceId]?[id] { return page }
        return page(id)
    }
    /// The device's pages, in the device's order.
    public func pages(of device: CompiledDevice) -> [CompiledPage] {
        device.pageIds.compactMap { page($0, on: device.id) }
    }
}
