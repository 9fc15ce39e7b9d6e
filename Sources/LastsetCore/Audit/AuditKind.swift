import Foundation
import LastsetFormats

/// The kind of job an audit record is about.
public enum AuditKind: String, JSONFieldValue, Sendable, Hashable, CaseIterable {
    /// A capture from a reference device.
    case capture
    /// A replay to a target (writes).
    case replay
    /// A replay's dry run (no write).
    case dryRun = "dry-run"
    /// A template file imported from elsewhere.
    case `import`
    /// An older version archived again as the latest (`templateVersion` is the new version).
    case promote
    /// A version removed from the archive (`templateVersion` is the one removed).
    case delete
    /// Audit records past the configured retention exported to a file of `<data>/audit-archive/` and removed
    /// from the database (the daemon's own job: `who` is `lastsetd`, no page or device; `message` names the file).
    case retention
    /// An administrator acknowledged a break of the audit log's hash chain (`lastset audit acknowledge`): the
    /// daemon writes again; `message` lists what was found and why it was acknowledged. No page or device.
    case chainAcknowledged = "chain-acknowledged"
    /// A repair of this host's fleet (`lastset fleet repair`): a quarantine of the hub's branch or a re-clone of the
    /// repository; `message` says which, what was done (or why not) and the operator's reason. No page or device.
    case fleetRepair = "fleet-repair"
    /// This host took its fleet's definition of a page in place of its config's (`lastset fleet page PAGE --take`), or
    /// released it (`--release`); `templateVersionId` is the fleet version whose definition it is, `pageHash` the
    /// definition in force after it; `message` lists what differed and the operator's reason. No device.
    case pageDefinition = "page-definition"
    /// A page of a device read as found by its scheduled backup or `lastset as-found DEVICE --now` (docs/AS-FOUND.md):
    /// `archived` when it was the first or something changed (`message` says what and by whom, `registers` the
    /// changes with `before`/`after`), `failed` when the device could not be read (once per failing streak).
    case backup
    /// A change request filed (docs/CHANGE-CONTROL.md): `who`, `time`, `reason`, `meaning` authorship, the page, the
    /// device, the version and (`message`) its hash; `changeRequest` is its id. Nothing is written.
    case changeRequest = "change-request"
    /// A signature on a change request: `who`, `time`, `meaning` and `reason`; `message` the request's state after.
    case approval
}
