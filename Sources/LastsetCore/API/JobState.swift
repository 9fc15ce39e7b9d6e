import Foundation
import LastsetFormats

/// State of a capture or replay job.
public enum JobState: String, JSONFieldValue, Sendable, Hashable {
    case running, finished
}
