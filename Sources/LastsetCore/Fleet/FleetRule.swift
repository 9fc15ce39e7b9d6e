/// The rule of the fleet's layout a change from the hub broke: why a fetch (and `lastset fleet doctor`) refuses it.
/// The stored names are stable (API, `lastset sync --json`, the doctor's report).
public enum FleetRule: String, Codable, Sendable, Hashable, CaseIterable {
    /// A path under `templates/`, `history/` or `audit/` that is not in the layout.
    case layout
    /// A file name that is not a fleet version's, record's or audit file's.
    case name
    /// A file in this host's namespace written elsewhere (only this host writes its names).
    case ownNamespace = "own-namespace"
    /// A version or record removed: the hub keeps every one for good.
    case removed
    /// A version or record changed: its id never changes meaning.
    case rewritten
    /// Not a regular file (a symlink, a submodule).
    case regularFile = "regular-file"
    /// An audit file whose records were rewritten or removed: only appends are accepted.
    case appendOnly = "append-only"
    /// The file's content is not what it must be (a template's checksum, a record's fields).
    case content
    /// The file holds another page, version or record than its name says.
    case nameMatchesContent = "name-matches-content"
    /// A file the commit names but the fetch did not bring.
    case missingObject = "missing-object"
    /// Under `requireSigned`: a commit not signed by an allowed signer (unsigned, bad, unknown, expired, revoked).
    case signature
    /// A file that passed every check but could not be archived here (the archive refused it).
    case archive
}
