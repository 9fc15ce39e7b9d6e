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
        pages = config.pages.map { CompiledPage($0) }
        deviceIndex = Dictionary(devices.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        pageIndex = Dictionary(config.pages.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { a, _ in a })
        var perDevice: [String: [String: CompiledPage]] = [:]
        for d in devices {
            guard let style = d.unsetStyle else { continue }
            for id in d.pageIds {
                guard let page = config.page(id), page.unsetStyle == nil, style != .maximum else { continue }
                perDevice[d.id, default: [:]][id] = CompiledPage(page, deviceStyle: style)
            }
        }
        devicePages = perDevice
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
