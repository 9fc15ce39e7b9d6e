/// Whether a register may be written.
public enum Access: String, Codable, Sendable, Hashable {
    case rw, ro
}
