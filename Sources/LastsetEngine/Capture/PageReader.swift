import LastsetCore
import ModbusLink
import Synchronization

/// The outcome of reading a set of register spans: the words that came back and the spans that failed.
/// Words are kept densely from the lowest address read (lookups per register must not hash).
struct PageReadout: Sendable {
    private var base = 0
    private var values: [UInt16] = []
    private var present: [Bool] = []
    var failures: [AddressSpan: ModbusError] = [:]
    /// Frames sent (retries included).
    var requests = 0

    /// An empty readout for addresses `range`.
    init(covering range: Range<Int> = 0..<0) {
        base = range.lowerBound
        values = [UInt16](repeating: 0, count: range.count)
        present = [Bool](repeating: false, count: range.count)
    }

    /// Records words read from `address`.
    mutating func store(_ words: [UInt16], at address: Int) {
        for (i, w) in words.enumerated() {
            let k = address + i - base
            guard k >= 0 && k < values.count else { continue }
            values[k] = w
            present[k] = true
        }
    }

    /// Forgets the words of `address ..< end` (they are stale after a write).
    mutating func forget(_ address: Int, _ end: Int) {
        let lo = max(0, address - base)
        let hi = min(values.count, end - base)
        guard lo < hi else { return }
        for k in lo..<hi { present[k] = false }
    }

    /// Copies the words `other` holds within `address ..< end`.
    mutating func merge(_ other: PageReadout, _ address: Int, _ end: Int) {
        for a in address..<end {
            let k = a - other.base
            let j = a - base
            guard k >= 0, k < other.values.count, other.present[k], j >= 0, j < values.count else { continue }
            values[j] = other.values[k]
            present[j] = true
        }
    }

    /// The index range of `span`'s words, nil when any of them is missing.
    private func range(_ span: AddressSpan) -> Range<Int>? {
        let lo = span.address - base
        let hi = span.end - base
        guard lo >= 0, hi <= values.count, lo < hi else { return nil }
        for k in lo..<hi where !present[k] { return nil }
        return lo..<hi
    }

    /// The span's words, nil when any of them is missing.
    func words(for span: AddressSpan) -> [UInt16]? {
        range(span).map { Array(values[$0]) }
    }

    /// Whether every word of the span was read.
    func has(_ span: AddressSpan) -> Bool { range(span) != nil }

    /// Calls `body` with the span's words in place (no array), nil when any is missing.
    func withWords<R>(for span: AddressSpan, _ body: (UnsafeBufferPointer<UInt16>) -> R) -> R? {
        guard let r = range(span) else { return nil }
        return values.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// The span's words as `valueData` hex (no word array in between), nil when any is missing.
    func hex(for span: AddressSpan) -> String? {
        guard let r = range(span) else { return nil }
        return values.withUnsafeBufferPointer { ValueHex.string(words: UnsafeBufferPointer(rebasing: $0[r])) }
    }

    /// The span's words decoded as `definition` (no word array in between), nil when any is missing.
    func value(for span: AddressSpan, as definition: RegisterDefinition) -> RegisterValue? {
        value(for: span, layout: RegisterLayout(definition))
    }

    /// The span's words decoded by `layout`, nil when any is missing.
    func value(for span: AddressSpan, layout: RegisterLayout) -> RegisterValue? {
        guard let r = range(span) else { return nil }
        return values.withUnsafeBufferPointer { RegisterCodec.decode(UnsafeBufferPointer(rebasing: $0[r]), layout: layout) }
    }

    /// The failure of the read that covered `span` (an exact span, or one overlapping it).
    func failure(for span: AddressSpan) -> ModbusError? {
        if let e = failures[span] { return e }
        return failures.first { $0.key.address < span.end && span.address < $0.key.end }?.value
    }
}

/// Read and write limits the engine has learned about a device (its endpoint and unit) beyond the
/// configured quirks: a device that answers a merged read with exception 03 (or 02 on a read it then
/// answers in parts) gets smaller reads from then on. Remembered while the configured limits stay
/// the same (a config change that touches them starts over).
final class LearnedLimits: Sendable {
    /// The process-wide memory.
    static let shared = LearnedLimits()

    private struct Key: Hashable {
        var connection: String
        var unit: Int
        var configured: DeviceLimits
    }
    private let state = Mutex<[Key: DeviceLimits]>([:])

    private func key(_ target: DeviceTarget) -> Key {
        Key(connection: target.endpoint.connectionKey, unit: target.unit, configured: target.limits)
    }

    /// The limits to plan with: the configured ones, narrowed by what was learned.
    func effective(_ target: DeviceTarget) -> DeviceLimits {
        state.withLock { $0[key(target)] } ?? target.limits
    }

    /// Narrows the learned limits (never widens them).
    func learn(_ target: DeviceTarget, maxRead: Int? = nil, maxGap: Int? = nil, maxWrite: Int? = nil) {
        let k = key(target)
        state.withLock { table in
            var l = table[k] ?? target.limits
            if let maxRead { l.maxReadRegisters = min(l.maxReadRegisters, max(1, maxRead)) }
            if let maxGap { l.maxGap = min(l.maxGap, max(0, maxGap)) }
            if let maxWrite { l.maxWriteRegisters = min(l.maxWriteRegisters, max(1, maxWrite)) }
            table[k] = l
        }
    }
}

/// The one way the engine reads registers (capture, snapshot, verification windows, final pass,
/// rollback, polling): the fewest requests the device's (learned) limits allow. A merged read
/// answered with exception 02 or 03 is split — into halves, or without bridging gaps when it bridged
/// one — until the parts are answered or a single register is at fault, so only the registers really
/// at fault are reported; when every part was answered, the smaller size is learned for the device.
enum PageReader {
    /// Reads `spans`; with `evenIfCancelled` (a rollback's read-back) shutdown does not cut it short.
    static func read(_ spans: [AddressSpan], from target: DeviceTarget, evenIfCancelled: Bool = false) async -> PageReadout {
        let unique = distinct(spans)
        let plan = RequestPlanner.reads(unique, limits: LearnedLimits.shared.effective(target))
        return await target.connection.batch { connection in
            var out = PageReadout(covering: (plan.map(\.address).min() ?? 0)..<(plan.map(\.end).max() ?? 0))
            for request in plan {
                if Task.isCancelled && !evenIfCancelled { break }
                perform(request, spans: unique, into: &out, on: connection, target: target)
            }
            return out
        }
    }

    /// The spans without repeats, by address (pages list their registers in address order nearly
    /// always: then this is one pass, without hashing every span).
    static func distinct(_ spans: [AddressSpan]) -> [AddressSpan] {
        func before(_ a: AddressSpan, _ b: AddressSpan) -> Bool {
            a.address != b.address ? a.address < b.address : a.length < b.length
        }
        var sorted = spans
        if !zip(spans, spans.dropFirst()).allSatisfy({ before($0, $1) }) {
            sorted.sort(by: before)
            var out: [AddressSpan] = []
            out.reserveCapacity(sorted.count)
            for s in sorted where s != out.last { out.append(s) }
            sorted = out
        }
        return sorted
    }

    /// Sends one planned read (inside a batch), splitting it when the device refuses it as merged.
    static func perform(
        _ request: AddressSpan, spans: [AddressSpan], into out: inout PageReadout, on connection: isolated ModbusConnection,
        target: DeviceTarget
    ) {
        do throws(ModbusError) {
            let words = try connection.readHoldingRegisters(
                unit: target.unit, address: request.address, count: request.length, options: target.linkOptions)
            out.requests += connection.lastCall.sent
            out.store(words, at: request.address)
        } catch {
            out.requests += connection.lastCall.sent
            // Only a refused read needs the spans inside it (a scan of every span: not once per answered read).
            let inside = spans.compactMap { s -> AddressSpan? in
                let lo = max(s.address, request.address)
                let hi = min(s.end, request.end)
                return lo < hi ? AddressSpan(address: lo, length: hi - lo) : nil
            }
            let code = error.exceptionCode
            guard code == 0x02 || code == 0x03, request.length > 1, inside.count > 1 || code == 0x03 else {
                for s in spans where s.address < request.end && request.address < s.end { out.failures[s] = error }
                return
            }
            var limits = LearnedLimits.shared.effective(target)
            let covered = Set(inside.flatMap { $0.address..<$0.end }).count
            let bridged = covered < request.length
            if code == 0x02 && bridged {
                limits.maxGap = 0
                limits.maxReadRegisters = request.length
            } else {
                limits.maxReadRegisters = max(1, request.length / 2)
            }
            let parts = RequestPlanner.reads(inside, limits: limits)
            guard parts.count > 1 else {
                for s in spans where s.address < request.end && request.address < s.end { out.failures[s] = error }
                return
            }
            let before = out.failures.count
            for part in parts {
                perform(part, spans: inside, into: &out, on: connection, target: target)
            }
            guard out.failures.count == before else { return }
            if code == 0x02 && bridged {
                LearnedLimits.shared.learn(target, maxGap: 0)
            } else {
                LearnedLimits.shared.learn(target, maxRead: limits.maxReadRegisters)
            }
        }
    }
}
