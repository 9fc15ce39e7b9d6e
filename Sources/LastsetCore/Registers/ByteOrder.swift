import LastsetFormats

/// Order of the two bytes inside each register: `big` puts the high byte (or first character) first.
public enum ByteOrder: String, JSONFieldValue, Sendable, Hashable {
    case big, little
}
