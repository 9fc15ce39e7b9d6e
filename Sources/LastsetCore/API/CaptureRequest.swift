import Foundation
import LastsetFormats

/// `POST /v1/pages/{page}/capture` body.
public struct CaptureRequest: Codable, Sendable, Hashable {
    /// Configured device id of the reference machine.
    public var device: String
    public init(device: String) { self.device = device }
}
