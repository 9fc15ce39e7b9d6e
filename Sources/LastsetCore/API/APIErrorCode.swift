/// The stable code of an API error body (`{"error":{"code":…,"message":…}}`): the raw value is the wire text
/// documented in docs/API.md ("Errors"), which programs match on. A new code is a new case here and a row there.
public enum APIErrorCode: String, CaseIterable, Sendable, Hashable, Codable {
    /// A history change that is already in force (promoting the latest version).
    case alreadyLatest = "already_latest"
    /// The same person signing a change request twice with one meaning.
    case alreadySigned = "already_signed"
    /// An apply (not a dry run) of a protected page without an approved change request.
    case approvalRequired = "approval_required"
    /// An acknowledgment of the audit chain while it is intact and not marked broken.
    case auditChainIntact = "audit_chain_intact"
    /// The database could not be copied (`POST /v1/backup`).
    case backupFailed = "backup_failed"
    /// An endpoint that does not parse.
    case badEndpoint = "bad_endpoint"
    /// Identity values given on an import that the page's identity registers cannot hold.
    case badIdentity = "bad_identity"
    /// A signature whose meaning is `authorship` (the requester's own).
    case badMeaning = "bad_meaning"
    /// A body that is missing, not JSON, lacks a key or has a value of the wrong type.
    case badJSON = "bad_json"
    /// A query parameter that is not one of its allowed values.
    case badParameter = "bad_parameter"
    /// A request target holding a control byte (answered by the HTTP server).
    case badPath = "bad_path"
    /// A contradictory body (both `device` and `endpoint`, or `unit` with `device`).
    case badRequest = "bad_request"
    /// An ad-hoc unit outside 1…247.
    case badUnit = "bad_unit"
    /// A scan's `units` that name no unit of 1…247 (`POST /v1/scan`).
    case badUnits = "bad_units"
    /// A scan's `bauds` that are not baud rates of a serial line (`POST /v1/scan`).
    case badBauds = "bad_bauds"
    /// A scan's `timeout` that is not a duration from 10 ms to 10 s (`POST /v1/scan`).
    case badTimeout = "bad_timeout"
    /// A version that is not a positive number, `<host>-<number>` or `latest`.
    case badVersion = "bad_version"
    /// A body over its size limit (answered by the HTTP server).
    case bodyTooLarge = "body_too_large"
    /// A change request that was applied or refused stale.
    case changeClosed = "change_closed"
    /// A reload refused: the config file has problems, the running config stays.
    case configInvalid = "config_invalid"
    /// A session request that changes state without the session's CSRF token.
    case csrfFailed = "csrf_failed"
    /// Another job holds the device, or a poll is in progress.
    case deviceBusy = "device_busy"
    /// Taking a fleet page definition: this host's page is the fleet's definition already.
    case definitionSame = "definition_same"
    /// Taking a fleet page definition: the fleet's latest version was captured against a definition no host published.
    case definitionUnpublished = "definition_unpublished"
    /// Taking a fleet page definition: it would not pass as this host's config (the checker's problems).
    case definitionInvalid = "definition_invalid"
    /// Releasing a fleet page definition: the page runs on the config's definition.
    case definitionNotTaken = "definition_not_taken"
    /// A change request whose dry run did not plan (identity mismatch, unreadable target…): not filed.
    case dryRunRefused = "dry_run_refused"
    /// A body with a key given twice.
    case duplicateKey = "duplicate_key"
    /// A response that could not be encoded.
    case encodingFailed = "encoding_failed"
    /// TCP: a `Host` header that is not accepted.
    case forbiddenHost = "forbidden_host"
    /// TCP: an `Origin` that is not the listener's own.
    case forbiddenOrigin = "forbidden_origin"
    /// The caller's role does not allow the request.
    case forbiddenRole = "forbidden_role"
    /// The device did not answer its FC43/14 identification, or answered it malformed.
    case identificationFailed = "identification_failed"
    /// The device answered FC43/14 with exception 01: it has no Read Device Identification.
    case identificationUnsupported = "identification_unsupported"
    /// The identity registers could not be read from the device an import names.
    case identityReadFailed = "identity_read_failed"
    /// An unexpected failure.
    case `internal` = "internal"
    /// A legacy iOS archive that cannot be read.
    case invalidArchive = "invalid_archive"
    /// A page or device id that is not a safe name.
    case invalidName = "invalid_name"
    /// An imported file that is not a valid template.
    case invalidTemplate = "invalid_template"
    /// A job that ended without the report the request needs.
    case jobFailed = "job_failed"
    /// Serial settings a job asks for that its line may not be used with.
    case lineSettings = "line_settings"
    /// A known path with another method.
    case methodNotAllowed = "method_not_allowed"
    /// A query parameter the request needs is missing.
    case missingParameter = "missing_parameter"
    /// An acknowledgment of the audit chain without a reason.
    case missingReason = "missing_reason"
    /// An apply body with neither `device` nor `endpoint`.
    case missingTarget = "missing_target"
    /// A fleet request on a host in no fleet.
    case noFleet = "no_fleet"
    /// An apply of a change request without an approval by another person.
    case notApproved = "not_approved"
    /// A whole-machine apply on a device without pages.
    case noPages = "no_pages"
    /// Unix socket with `api.roles`: the peer is in none of the listed groups.
    case noRole = "no_role"
    /// Signing out without a session.
    case noSession = "no_session"
    /// Signing in where sessions are not offered (the Unix socket).
    case noSessions = "no_sessions"
    /// The page has no archived template.
    case noTemplate = "no_template"
    /// No such path, or no such job.
    case notFound = "not_found"
    /// A body with a null value.
    case nullValue = "null_value"
    /// An imported template of another page.
    case pageMismatch = "page_mismatch"
    /// The requester signing their own change request.
    case ownRequest = "own_request"
    /// The device's config does not list the page.
    case pageNotOnDevice = "page_not_on_device"
    /// The daemon is stopping and takes no new jobs.
    case shuttingDown = "shutting_down"
    /// A certificate's file could not be signed (no key could be made or read, ssh-keygen failed).
    case signingFailed = "signing_failed"
    /// A certificate asked for a job that wrote nothing to a machine (a capture, an import, …).
    case notAReplay = "not_a_replay"
    /// A change request's apply whose fresh dry run did not reproduce the approved hash: nothing written.
    case staleApproval = "stale_approval"
    /// The database could not be read or written.
    case storage = "storage"
    /// A stored template that fails its checks.
    case templateCorrupt = "template_corrupt"
    /// Unix socket: the peer's uid holds every connection it may (answered by the HTTP server).
    case tooManyConnections = "too_many_connections"
    /// TCP: token or session missing, wrong, expired or revoked.
    case unauthorized = "unauthorized"
    /// A body where the request takes none.
    case unexpectedBody = "unexpected_body"
    /// A device id not in the config.
    case unknownDevice = "unknown_device"
    /// A body with a key its request type does not have.
    case unknownKey = "unknown_key"
    /// A page id not in the config.
    case unknownPage = "unknown_page"
    /// The page has no such template version.
    case unknownVersion = "unknown_version"
    /// The version the operator confirmed is no longer what the request resolves to.
    case versionChanged = "version_changed"
    /// A fleet version whose id already names another template here.
    case versionConflict = "version_conflict"
    /// A version that may not be deleted while a device holds it.
    case versionInUse = "version_in_use"
}
