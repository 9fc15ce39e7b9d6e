/// Why an FC43/14 answer (or a run of them) was refused: what was wrong, with the offending byte or object.
public struct IdentificationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of fault it is.
    public enum Kind: Sendable, Hashable {
        /// The answer ends before a field or object it declares.
        case truncated
        /// The device answered FC43 with an exception (01: it has no device identification).
        case exception(UInt8)
        /// The function code, MEI type or Read Device ID code is not the request's.
        case notTheAnswer
        /// A conformity level or "more follows" byte the specification does not define.
        case badField
        /// An object outside the category asked for, or objects out of order in one answer.
        case objectOrder
        /// Bytes after the last declared object.
        case trailingBytes
        /// "More follows" without a next object beyond the answer's last one: reading on would never end.
        case noProgress
        /// Two answers disagree (an object's value, the conformity level).
        case inconsistent
    }

    /// The kind of fault.
    public var kind: Kind
    /// What was wrong, quoting the byte or object.
    public var message: String

    /// Sets every field.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// The message.
    public var description: String { message }
}
