/// Order of the two bytes inside each register: `big` puts the high byte (or first character) first.
public enum ByteOrder: String, Codable, Sendable, Hashable {
    case big, little
}
