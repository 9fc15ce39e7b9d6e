/// A database's schema as its forward migrations: migration `i` (1-based) takes a database from `PRAGMA
/// user_version` i-1 to i, in one transaction with the version change. A database whose version is higher than
/// `migrations.count` was written by a newer build and is refused (never downgraded).
public struct Schema: Sendable {
    /// What the database is (for messages: "the lastset record store").
    public var name: String
    /// `PRAGMA application_id` of the file: set when the database is created, and a file carrying another
    /// (non-zero) one is refused, so a database of another program is never migrated into this one.
    public var applicationID: Int32
    /// SQL of each migration, oldest first; never edited once released, only appended to.
    public var migrations: [String]

    /// A schema of `migrations`.
    public init(name: String, applicationID: Int32, migrations: [String]) {
        self.name = name
        self.applicationID = applicationID
        self.migrations = migrations
    }

    /// The version a fully migrated database has.
    public var version: Int { migrations.count }
}
