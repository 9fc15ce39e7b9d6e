import LastsetCore
import LastsetEngine

/// Why a device job was not started, or ended without what it was for; nothing was sent to the device unless
/// the case says so.
enum JobRefusal: Error, Sendable, CustomStringConvertible {
    /// Another job holds the target (409 `device_busy`).
    case busy(target: String, holder: JobKind)
    /// A poll of the target is in progress (409 `device_busy`).
    case polling(target: String)
    /// The target's serial line may not be used with the settings it asks for (409 `line_settings`).
    case lineSettings(LineAccess.Refusal)
    /// The identity registers could not be read (502 `identity_read_failed`): requests were sent, none written.
    case identityUnread(ReadError)
    /// A job waited for is no longer in the job table (404 `not_found`).
    case vanished(jobId: String)

    var description: String {
        switch self {
        case .busy(let target, let holder):
            return "\(target) is busy with a running \(holder.rawValue); try again when it has finished"
        case .polling(let target): return "\(target) is being polled; try again"
        case .lineSettings(let refusal): return refusal.description
        case .identityUnread(let error): return error.message
        case .vanished(let id): return "job \(id) vanished"
        }
    }
}
