/// The process exit status of `lastset`: 0 success, 1 the operation failed, 64 usage error (sysexits `EX_USAGE`).
enum ExitCode: Int32, Sendable {
    /// The command did what was asked (capture archived, replay succeeded, dry run planned).
    case success = 0
    /// The operation failed: a mismatch, a refusal, a daemon error, or the daemon cannot be reached.
    case failure = 1
    /// The command line is wrong: unknown command or option, missing or bad argument.
    case usage = 64
}
