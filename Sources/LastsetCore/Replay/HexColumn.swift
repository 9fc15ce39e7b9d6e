/// One optional hex value per register (its expected words, its "before", a read-back), kept as words
/// in one flat array: hex is made only when a journal line or a report line needs it, and comparing
/// two values compares words, not strings.
///
/// A value is kept as words when its hex is canonical — upper-case digits, four per word, what
/// `ValueHex.string(words:)` writes — so words and hex convert both ways without loss and two values'
/// words are equal exactly when their hex strings are. Any other text (lower case, an odd length,
/// not hex: only a hand-edited journal holds such) is kept as given and compared as a string, as
/// before.
struct HexColumn: Sendable {
    /// What a register's slot holds.
    enum State: UInt8, Sendable {
        /// No value (no read-back yet; no "before").
        case absent
        /// Words: `flat[starts[i] ..< starts[i] + counts[i]]`.
        case words
        /// A value whose data is nil (a read that failed), with a message perhaps.
        case missing
        /// Non-canonical text, in `texts`.
        case text
    }

    private(set) var states: [State] = []
    private var starts: [Int] = []
    private var counts: [Int] = []
    private var flat: [UInt16] = []
    private var texts: [Int: String] = [:]
    /// Why a read failed (or any message its check carried), by register.
    private var messages: [Int: String] = [:]

    /// `count` absent values.
    init(count: Int = 0) { reset(count: count) }

    /// Register i's value `words[starts[i] ..< starts[i] + counts[i]]`, for every register: the
    /// column made whole from flat words (no per-register set).
    init(words: [UInt16], starts: [Int], counts: [Int]) {
        precondition(starts.count == counts.count)
        states = [State](repeating: .words, count: starts.count)
        self.starts = starts
        self.counts = counts
        flat = words
    }

    /// Every value absent, for `count` registers (the storage kept for reuse).
    mutating func reset(count: Int) {
        if states.count == count {
            for i in states.indices { states[i] = .absent }
        } else {
            states = [State](repeating: .absent, count: count)
            starts = [Int](repeating: 0, count: count)
            counts = [Int](repeating: 0, count: count)
        }
        flat.removeAll(keepingCapacity: true)
        if !texts.isEmpty { texts.removeAll() }
        if !messages.isEmpty { messages.removeAll() }
    }

    /// Number of registers.
    var count: Int { states.count }

    /// Sets register `i`'s value to `words` (nil: a failed read) and its message.
    mutating func set(_ i: Int, words: UnsafeBufferPointer<UInt16>?, message: String? = nil) {
        setMessage(i, message)
        guard let words else {
            states[i] = .missing
            return
        }
        if !texts.isEmpty { texts[i] = nil }
        if states[i] == .words && counts[i] == words.count {
            // Overwritten in place (a later read of the same register).
            let s = starts[i]
            for k in 0..<words.count { flat[s + k] = words[k] }
        } else {
            starts[i] = flat.count
            counts[i] = words.count
            flat.append(contentsOf: words)
        }
        states[i] = .words
    }

    /// Sets register `i`'s value from hex (as a journal event carries it; nil: a failed read).
    mutating func set(_ i: Int, hex: String?, message: String? = nil) {
        guard let hex else {
            set(i, words: nil, message: message)
            return
        }
        if hex.utf8.count % 4 == 0, ValueHex.isUpperCase(hex),
            ValueHex.withWords(hex: hex, { set(i, words: $0, message: message) }) != nil
        {
            return
        }
        setMessage(i, message)
        texts[i] = hex
        states[i] = .text
    }

    /// Sets register `i`'s value from `JournalCheck`-like parts.
    mutating func set(_ i: Int, check: JournalCheck) { set(i, hex: check.data, message: check.message) }

    private mutating func setMessage(_ i: Int, _ message: String?) {
        if let message {
            messages[i] = message
        } else if !messages.isEmpty {
            messages[i] = nil
        }
    }

    /// True when register `i` has a value (a check: it was read, whether or not the read worked).
    func isPresent(_ i: Int) -> Bool { states[i] != .absent }

    /// True when register `i` has data (words or text).
    func hasData(_ i: Int) -> Bool { states[i] == .words || states[i] == .text }

    /// Register `i`'s message.
    func message(_ i: Int) -> String? { messages.isEmpty ? nil : messages[i] }

    /// Register `i`'s data as hex (nil when absent or missing).
    func hex(_ i: Int) -> String? {
        switch states[i] {
        case .words:
            return flat.withUnsafeBufferPointer {
                ValueHex.string(words: UnsafeBufferPointer(rebasing: $0[starts[i]..<(starts[i] + counts[i])]))
            }
        case .text: return texts[i]
        case .absent, .missing: return nil
        }
    }

    /// Calls `body` with register `i`'s words (as `ValueHex.withWords` gives them from its hex); nil
    /// when it has no data or its text is not even-length hex.
    func withWords<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt16>) -> R) -> R? {
        switch states[i] {
        case .words:
            return flat.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[starts[i]..<(starts[i] + counts[i])])) }
        case .text: return texts[i].flatMap { ValueHex.withWords(hex: $0, body) }
        case .absent, .missing: return nil
        }
    }

    /// Register `i`'s value as a check (nil when absent).
    func check(_ i: Int, registerId: String) -> JournalCheck? {
        states[i] == .absent ? nil : JournalCheck(registerId: registerId, data: hex(i), message: message(i))
    }

    /// True when register `i` has data equal to register `j`'s data in `other` (the hex strings'
    /// equality: false when either has none).
    func dataEquals(_ i: Int, _ other: HexColumn, _ j: Int) -> Bool {
        let a = states[i]
        let b = other.states[j]
        guard a == .words || a == .text, b == .words || b == .text else { return false }
        if a == .words && b == .words {
            let n = counts[i]
            guard n == other.counts[j] else { return false }
            let s = starts[i]
            let t = other.starts[j]
            for k in 0..<n where flat[s + k] != other.flat[t + k] { return false }
            return true
        }
        return hex(i) == other.hex(j)
    }

    /// True when register `i`'s data is the hex `text` (nil: false).
    func dataEquals(_ i: Int, hex text: String?) -> Bool {
        guard let text, hasData(i) else { return false }
        return hex(i) == text
    }
}
