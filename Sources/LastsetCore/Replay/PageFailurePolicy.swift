import Foundation
import LastsetFormats

/// What to do when one page of a whole-machine apply does not succeed.
public enum PageFailurePolicy: String, Codable, Sendable, Hashable {
    /// Stop: the pages after it are not attempted (default).
    case stop
    /// Go on with the next page.
    case `continue`
}
