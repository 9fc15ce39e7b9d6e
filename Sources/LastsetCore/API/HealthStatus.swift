import Foundation
import LastsetFormats

/// The daemon's state as `GET /v1/health` gives it.
public enum HealthStatus: String, Codable, Sendable, Hashable {
    /// Serving.
    case ok
    /// Shutting down: new jobs are refused, running ones finish.
    case stopping
}
