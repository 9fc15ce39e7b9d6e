import Foundation
import LastsetFormats

/// State of a capture or replay job.
public enum JobState: String, Codable, Sendable, Hashable {
    case running, finished
}
