import Foundation

/// A page definition this host took from its fleet (`lastset fleet page PAGE --take`), kept in
/// `<data>/page-definitions/<page>.json` and used in place of the config's definition of that page at every config
/// load, until it is released (`--release`). The config file stays as written (the daemon never writes it).
public struct TakenPageDefinition: Codable, Sendable, Hashable {
    /// Marks the file (`"lastset-taken-page-definition"`).
    public var format: String
    /// The fleet version whose definition it is (`<host>-<n>`), and the host that published the definition.
    public var fromVersion: String
    public var publishedBy: String
    /// Who took it, when and why.
    public var takenBy: String
    public var takenAt: Date
    public var reason: String
    /// The config's definition it replaces, by hash, when taken.
    public var replacedHash: String
    /// The definition in force.
    public var definition: FleetPageDefinition

    /// The `format` every file carries.
    public static let formatName = "lastset-taken-page-definition"

    /// A definition taken now.
    public init(
        definition: FleetPageDefinition, fromVersion: String, takenBy: String, takenAt: Date, reason: String,
        replacedHash: String
    ) {
        format = Self.formatName
        self.definition = definition
        self.fromVersion = fromVersion
        publishedBy = definition.host
        self.takenBy = takenBy
        self.takenAt = takenAt
        self.reason = reason
        self.replacedHash = replacedHash
    }

    /// The config with every taken definition in place of the config's own (a taken page the config no longer has
    /// is left out: devices name pages of the config).
    public static func apply(_ taken: [TakenPageDefinition], to config: LastsetConfig) -> LastsetConfig {
        var config = config
        for t in taken {
            guard let i = config.pages.firstIndex(where: { $0.id == t.definition.definition.id }) else { continue }
            config.pages[i] = t.definition.definition
        }
        return config
    }
}
