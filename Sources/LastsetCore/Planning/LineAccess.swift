/// Whether a job or a poll may talk on a serial line with the framing it asks for (issue 19, defect 7).
///
/// A serial line has one framing. The connection pool keys a line by its real path, so whichever endpoint
/// reached it first used to set the baud for every unit on it: an ad-hoc `rtu://…?baud=9600` opened the
/// line for the configured units, or was written through a line open at 19200. The rule, decided before a
/// frame is sent:
/// 1. the settings the configured devices on the line declare (the config of the job's generation) are the
///    line's: other settings are refused;
/// 2. a line open with other settings for a running job or poll is not reopened under it: refused;
/// 3. otherwise the line is used with the requested settings (opened, or reopened when it was idle with
///    others: after a reload that changed the line, or on a line no device is configured on).
public enum LineAccess {
    /// What one configured device declares for its line.
    public struct Declaration: Hashable, Sendable {
        /// The configured device's id.
        public var device: String
        /// The settings its endpoint gives.
        public var settings: LineSettings

        /// A declaration.
        public init(device: String, settings: LineSettings) {
            self.device = device
            self.settings = settings
        }
    }

    /// Why a job may not use the line; names both settings. Nothing has been sent.
    public enum Refusal: Error, Hashable, Sendable, CustomStringConvertible {
        /// A configured device on the line declares other settings.
        case configured(line: MachineKey, requested: LineSettings, device: String, declared: LineSettings)
        /// The line is open with other settings for a running job or poll.
        case inUse(line: MachineKey, requested: LineSettings, open: LineSettings)

        /// The refusal, with the line, the settings asked for and the line's.
        public var description: String {
            switch self {
            case .configured(let line, let requested, let device, let declared):
                return
                    "\(line): the job asks for \(requested), but the line is configured with \(declared) (device \"\(device)\"); every unit on one serial line uses the line's settings: nothing was sent"
            case .inUse(let line, let requested, let open):
                return
                    "\(line) is open with \(open) for a running job; this one needs \(requested): nothing was sent, try again when it has finished"
            }
        }
    }

    /// The refusal of a job asking for `requested` on `line`, or nil when it may go ahead. `declared`: what the
    /// configured devices on the line declare; `open`: the settings the line was last used with (nil: never);
    /// `inUse`: a job or poll holds the line now.
    public static func refusal(
        line: MachineKey, requested: LineSettings, declared: [Declaration], open: LineSettings?, inUse: Bool
    ) -> Refusal? {
        if let other = declared.first(where: { $0.settings != requested }) {
            return .configured(line: line, requested: requested, device: other.device, declared: other.settings)
        }
        if let open, open != requested, inUse { return .inUse(line: line, requested: requested, open: open) }
        return nil
    }
}
