/// Every request a replay sends, planned before the first frame, as pure functions of the entries
/// and the device's limits: the read plan (used for the "before" snapshot, the verification windows
/// and the final pass — the capture minimum), the page-ordered write plan, and the verification
/// windows between them. Re-planning after a refused FC16 (FC06 fallback) or a write refused as too
/// long keeps what was already sent and re-plans only the rest.
///
/// A *window* is the run of consecutive writes after which a read of the read plan is complete: the
/// read is sent as soon as the next write no longer touches it — nor any part of a register it writes
/// (a register longer than the write limit is written in parts, and read back once all are sent). With
/// registers in address order every read of the plan is sent exactly once; a register is always read
/// back before any write that does not touch its read is sent, so a mismatch or a rejection stops the
/// replay before anything beyond the current window is written.
public struct ReplayPlan: Sendable, Hashable {
    /// One verification window: writes `writes` (indices into `writes`), then the reads `reads`
    /// (indices into `reads`, ascending).
    public struct Window: Sendable, Hashable {
        /// Indices of the window's write requests.
        public var writes: Range<Int>
        /// Indices of the reads sent after them.
        public var reads: [Int]
        /// Reads touched by earlier writes, not yet sent when the window starts.
        public var carriedIn: [Int]
        /// A window from its parts.
        public init(writes: Range<Int>, reads: [Int], carriedIn: [Int] = []) {
            self.writes = writes
            self.reads = reads
            self.carriedIn = carriedIn
        }
    }

    /// Requests of a replay that runs through, by purpose.
    public struct Counts: Sendable, Hashable {
        /// Reads of the "before" snapshot (the capture minimum).
        public var snapshot: Int
        /// Write requests.
        public var writes: Int
        /// Reads of the verification windows.
        public var windowReads: Int
        /// Reads of the final verification pass (the capture minimum again).
        public var finalPass: Int
        /// Everything.
        public var total: Int { snapshot + writes + windowReads + finalPass }
        /// Counts from their parts.
        public init(snapshot: Int, writes: Int, windowReads: Int, finalPass: Int) {
            self.snapshot = snapshot
            self.writes = writes
            self.windowReads = windowReads
            self.finalPass = finalPass
        }
    }

    /// The values to write, in page order.
    public let entries: [PlannedWrite]
    /// The read plan over every entry.
    public let reads: [AddressSpan]
    /// The write requests (after any re-planning).
    public private(set) var writes: [WriteRequest]
    /// The limits the writes from `writes` on were planned with (FC06 after a fallback).
    public private(set) var writeLimits: DeviceLimits
    /// The device's declared write limit (`limits` at planning): only a register longer than this is
    /// ever split across writes, whatever shorter limit a re-plan uses.
    public let declaredMaxWrite: Int
    /// Register ids to entry positions (the first of a repeated id); nil when the caller said the ids
    /// are unique (`uniqueIds`): then a lookup the hint misses searches the entries.
    private let index: [String: Int]?

    /// Plans reads with `readLimits` (the device's learned read limit) and writes with `limits`.
    /// `uniqueIds`: the entries' ids are known to be unique (a replay's template check refuses repeats),
    /// so no index of them is built — lookups go by hint (writes name entries in order).
    public init(entries: [PlannedWrite], limits: DeviceLimits, readLimits: DeviceLimits? = nil, uniqueIds: Bool = false) {
        self.entries = entries
        reads = RequestPlanner.reads(
            entries.map { AddressSpan(address: $0.address, length: $0.words.count) }, limits: readLimits ?? limits)
        writes = RequestPlanner.writes(entries, limits: limits)
        writeLimits = limits
        declaredMaxWrite = limits.maxWriteRegisters
        index =
            uniqueIds ? nil : Dictionary(entries.enumerated().map { ($1.registerId, $0) }, uniquingKeysWith: { a, _ in a })
    }

    /// The entry of a register.
    public func entry(_ registerId: String) -> PlannedWrite? { entryIndex(registerId).map { entries[$0] } }

    /// The position of a register in `entries`; `hint` is where it probably is (writes name their
    /// registers in entry order, so a walk through them compares one id instead of hashing it).
    public func entryIndex(_ registerId: String, hint: Int = -1) -> Int? {
        guard let index else {
            if hint >= 0 && hint < entries.count && entries[hint].registerId == registerId { return hint }
            // From just before the hint on (a register written in several requests repeats), then the rest.
            let from = min(max(0, hint - 1), entries.count)
            return entries[from...].firstIndex { $0.registerId == registerId }
                ?? entries[..<from].firstIndex { $0.registerId == registerId }
        }
        if hint >= 0 && hint < entries.count && entries[hint].registerId == registerId && index.count == entries.count {
            return hint
        }
        return index[registerId]
    }

    /// The entries (indices, in request order) `request` writes.
    public func entryIndices(_ request: WriteRequest) -> [Int] {
        var out: [Int] = []
        out.reserveCapacity(request.registerIds.count)
        var hint = -1
        for id in request.registerIds {
            guard let i = entryIndex(id, hint: hint) else { continue }
            hint = i + 1
            out.append(i)
        }
        return out
    }

    /// The reads (indices, ascending) that cover words `request` writes.
    public func touched(_ request: WriteRequest) -> [Int] {
        touched(address: request.address, end: request.address + request.words.count)
    }

    /// The reads (indices, ascending) a write must keep open: those overlapping its words and the whole of
    /// each register it writes part of (its first and last registers may be longer than the write).
    /// `hint`: where its first register probably is in `entries` (writes name them in order); left at
    /// its last one.
    public func reached(_ request: WriteRequest, hint: inout Int) -> [Int] {
        var lo = request.address
        var hi = request.address + request.words.count
        for id in [request.registerIds.first, request.registerIds.last].compactMap({ $0 }) {
            guard let k = entryIndex(id, hint: hint) else { continue }
            hint = k
            lo = min(lo, entries[k].address)
            hi = max(hi, entries[k].address + entries[k].words.count)
        }
        return touched(address: lo, end: hi)
    }

    /// The reads (indices, ascending) overlapping `address ..< end`.
    public func touched(address: Int, end: Int) -> [Int] { Array(touchedRange(address: address, end: end)) }

    /// The reads overlapping `address ..< end`: a range of indices (reads are sorted by address and do
    /// not overlap).
    public func touchedRange(address: Int, end: Int) -> Range<Int> {
        // The first read ending after `address`.
        var lo = 0
        var hi = reads.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if reads[mid].end <= address { lo = mid + 1 } else { hi = mid }
        }
        var i = lo
        while i < reads.count && reads[i].address < end { i += 1 }
        return lo..<i
    }

    /// The verification windows of the writes from `start` on, with `pending` reads touched by earlier
    /// writes and not yet sent.
    public func windows(from start: Int = 0, pending: [Int] = []) -> [Window] {
        guard start < writes.count else {
            return pending.isEmpty ? [] : [Window(writes: start..<start, reads: pending.sorted(), carriedIn: pending.sorted())]
        }
        var out: [Window] = []
        var open = Set(pending)
        var windowStart = start
        var carried = pending.sorted()
        var i = start
        var hint = -1
        while i < writes.count {
            open.formUnion(touched(writes[i]))
            // A read the next write reaches stays open: one covering its words, or any part of a register it
            // writes (a register longer than the write limit is written in parts, and is read back only
            // once every part is written — else its first part's read is never sent after its last part).
            let next = i + 1 < writes.count ? Set(reached(writes[i + 1], hint: &hint)) : []
            let due = open.subtracting(next).sorted()
            if !due.isEmpty || i + 1 == writes.count {
                out.append(Window(writes: windowStart..<(i + 1), reads: due, carriedIn: carried))
                open.subtract(due)
                windowStart = i + 1
                carried = open.sorted()
            }
            i += 1
        }
        return out
    }

    /// What a replay that runs through sends.
    public var counts: Counts {
        Counts(
            snapshot: reads.count, writes: writes.count, windowReads: windows().reduce(0) { $0 + $1.reads.count },
            finalPass: reads.count)
    }

    /// Re-plans the writes from `start` on with `limits` (FC06 after FC16 was refused, a smaller
    /// `maxWriteRegisters` after a merged write was refused with exception 03). Requests before `start`
    /// stay as sent; the words the requests from `start` on would have written are planned again, in the
    /// same order; no register is split unless it is longer than `declaredMaxWrite`. With
    /// `isolatingFirst` the refused request `writes[start]` is re-planned on its own: its shorter writes
    /// never merge with the writes after it, so they stay inside the window it was in (a register after
    /// it is never written before the refused request's registers are verified).
    public mutating func replan(from start: Int, limits: DeviceLimits, isolatingFirst: Bool = false) {
        guard start < writes.count else { return }
        let tail = isolatingFirst && start + 1 < writes.count
        let first = plannedWrites(writes[start..<(tail ? start + 1 : writes.count)])
        let rest = tail ? plannedWrites(writes[(start + 1)...]) : []
        writes =
            Array(writes[..<start]) + RequestPlanner.writes(first, limits: limits, declaredMaxWrite: declaredMaxWrite)
            + RequestPlanner.writes(rest, limits: limits, declaredMaxWrite: declaredMaxWrite)
        writeLimits = limits
    }

    /// Re-plans after the device refused `writes[k]` (`WriteRefusal.decide`): with `fallBackToFC06` the writes from
    /// it on as FC06; with `shorten` its registers again in writes of at most the shorter limit, on their own
    /// (`isolatingFirst`: they stay inside its window), and the rest with that limit. `rejected` re-plans nothing.
    public mutating func replan(at k: Int, after refusal: WriteRefusal) {
        var limits = writeLimits
        switch refusal {
        case .fallBackToFC06:
            limits.writeFunction = .fc06
            replan(from: k, limits: limits)
        case .shorten(let limit):
            limits.maxWriteRegisters = limit
            replan(from: k, limits: limits, isolatingFirst: true)
        case .rejected:
            break
        }
    }

    /// The words `requests` write, as planned writes by entry (in entry order of first appearance).
    private func plannedWrites(_ requests: ArraySlice<WriteRequest>) -> [PlannedWrite] {
        // By entry position (lookups hinted: the writes name their entries in order).
        var order: [Int] = []
        var ranges: [Int: (lo: Int, hi: Int)] = [:]
        var hint = -1
        for request in requests {
            let lo = request.address
            let hi = request.address + request.words.count
            for id in request.registerIds {
                guard let k = entryIndex(id, hint: hint) else { continue }
                hint = k + 1
                let e = entries[k]
                let a = max(lo, e.address)
                let b = min(hi, e.address + e.words.count)
                guard a < b else { continue }
                if let r = ranges[k] {
                    ranges[k] = (min(r.lo, a), max(r.hi, b))
                } else {
                    ranges[k] = (a, b)
                    order.append(k)
                }
            }
        }
        return order.compactMap { k -> PlannedWrite? in
            guard let r = ranges[k] else { return nil }
            let e = entries[k]
            return PlannedWrite(
                registerId: e.registerId, address: r.lo, words: Array(e.words[(r.lo - e.address)..<(r.hi - e.address)]))
        }
    }

    /// The reads of a final pass over `registerIds` (the capture minimum when every entry was written).
    public func finalPass(_ registerIds: [String], limits: DeviceLimits) -> [AddressSpan] {
        RequestPlanner.reads(
            registerIds.compactMap { entry($0) }.map { AddressSpan(address: $0.address, length: $0.words.count) },
            limits: limits)
    }
}
