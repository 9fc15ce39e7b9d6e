/// Reads a server-sent-events stream as it arrives (`GET /v1/events`): bytes in any pieces, one `Message` per
/// event block (`id:`, `event:`, `data:` lines up to a blank line; comments and unknown fields skipped; several
/// `data:` lines joined by newlines, as the SSE specification says). Pure (`ServerEventTests`).
public struct ServerEventStream: Sendable {
    /// One event block.
    public struct Message: Sendable, Hashable {
        /// The `id:` field (nil: none).
        public var id: String?
        /// The `event:` field (`message` when absent).
        public var event: String
        /// The `data:` lines, joined by newlines.
        public var data: String

        /// Sets every field.
        public init(id: String?, event: String, data: String) {
            self.id = id
            self.event = event
            self.data = data
        }
    }

    /// The comment lastsetd sends before it ends every stream because it is stopping (not a dropped connection).
    public static let stoppingComment = ": lastsetd stopping"

    private var line: [UInt8] = []
    private var id: String?
    /// Whether the daemon said it is stopping (`stoppingComment`): the stream ends on purpose.
    public private(set) var stopping = false

    /// The SSE "last event ID": the `id:` in force when the last block ended (a block cut before its blank line does
    /// not count: the daemon sends it again) — what a client reconnecting sends as `Last-Event-ID`. A block with an
    /// id and no data counts too (the daemon's position sent when a stream opens).
    public private(set) var lastEventId: String?
    private var event: String?
    private var data: [String] = []

    /// An empty reader.
    public init() {}

    /// The events `bytes` complete (a block split across calls is kept until its blank line arrives).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Message] {
        var out: [Message] = []
        for byte in bytes {
            guard byte == 0x0A else {
                line.append(byte)
                continue
            }
            if line.last == 0x0D { line.removeLast() }
            let text = String(decoding: line, as: UTF8.self)
            line = []
            if text.isEmpty {
                lastEventId = id
                if !data.isEmpty || event != nil {
                    out.append(Message(id: id, event: event ?? "message", data: data.joined(separator: "\n")))
                }
                (event, data) = (nil, [])
                continue
            }
            if text.hasPrefix(":") {
                if text == Self.stoppingComment { stopping = true }
                continue
            }
            let (field, value) = Self.split(text)
            switch field {
            case "id": id = value
            case "event": event = value
            case "data": data.append(value)
            default: break
            }
        }
        return out
    }

    /// `field: value` (one space after the colon dropped), or the whole line as a field with no value.
    private static func split(_ text: String) -> (String, String) {
        guard let colon = text.firstIndex(of: ":") else { return (text, "") }
        var value = text[text.index(after: colon)...]
        if value.first == " " { value = value.dropFirst() }
        return (String(text[..<colon]), String(value))
    }
}
