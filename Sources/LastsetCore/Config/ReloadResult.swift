/// The answer to `POST /v1/reload` when the daemon took the new config (a refusal is a 422 error instead).
public struct ReloadResult: Codable, Sendable, Hashable {
    /// The config file that was re-read.
    public var configFile: String
    /// Devices in the config now in force.
    public var devices: Int
    /// Pages in the config now in force.
    public var pages: Int

    /// A result for a config with `devices` devices and `pages` pages.
    public init(configFile: String, devices: Int, pages: Int) {
        self.configFile = configFile
        self.devices = devices
        self.pages = pages
    }
}
