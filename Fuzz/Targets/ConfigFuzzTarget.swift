import Foundation
import LastsetCore

/// `lastset.json` text through the JSON5 loader, the checker and the compiler (`ConfigLoader.compile`), as
/// `lastsetd --check-config`, start-up and every reload read it.
public enum ConfigFuzzTarget: FuzzTarget {
    /// `config`.
    public static let name = "config"

    /// Checks and compiles the bytes as a config file; every problem must come back as `ConfigErrors`.
    public static func run(_ data: [UInt8]) {
        do {
            let config = try ConfigLoader.compile(Data(data), file: "fuzz.json")
            _ = config.devices.count + config.pages.count
        } catch {
            precondition(!error.problems.isEmpty, "a refused config must name at least one problem")
        }
    }
}
