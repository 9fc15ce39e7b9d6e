/// Why a `ServiceGroup` stopped other than by request: a service failed to start, or failed while running.
public struct ServiceGroupError: Error, CustomStringConvertible {
    /// When the service failed.
    public enum Phase: Sendable, Equatable {
        /// In `start`: the services after it were never started.
        case start
        /// In `run`: the group stopped the others.
        case run
    }

    /// The failing service's name.
    public let service: String
    /// When it failed.
    public let phase: Phase
    /// What it threw.
    public let underlying: any Error

    /// A failure of `service` in `phase`.
    public init(service: String, phase: Phase, underlying: any Error) {
        self.service = service
        self.phase = phase
        self.underlying = underlying
    }

    /// A start failure reads as the service's own error (it names what could not be opened); a failure while running
    /// names the service: `fleet sync failed: …`.
    public var description: String {
        switch phase {
        case .start: return "\(underlying)"
        case .run: return "\(service) failed: \(underlying)"
        }
    }
}
