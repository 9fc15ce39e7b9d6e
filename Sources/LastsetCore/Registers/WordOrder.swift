import LastsetFormats

/// Order of the 16-bit words of a multi-register value: `big` puts the most significant word first.
public enum WordOrder: String, JSONFieldValue, Sendable, Hashable {
    case big, little
}
