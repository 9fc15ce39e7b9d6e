/// When a replay's written registers may be read back and checked (issue 21): the bookkeeping of the
/// verification windows (`ReplayPlan.windows`) as they are sent — one pure decision, table-tested in
/// `ReadBackReadinessTests`; the replay's I/O loop only sends what it says and records the checks.
///
/// A window that sent every write sends its planned reads. One that stopped early (a failed write, shutdown, a
/// journal that cannot be written) sends the reads covering whatever was, or may have been, stored: the reads
/// carried into it, those of every write it sent, and those of a write sent without an answer. A register is
/// checked once every read covering it was sent after its last write (or after the unanswered write that may
/// have stored it); until then it waits, and registers are checked in the order they started waiting.
public struct ReadBackReadiness: Sendable, Hashable {
    /// Reads of the plan (indices) touched by a write and not yet sent: what a re-plan carries into its windows.
    public private(set) var openReads: Set<Int> = []
    /// The entries' spans (re-planning changes the writes, never the entries).
    private let spans: [AddressSpan]
    /// Per entry: the window (numbered from 1) of its last write; 0 when it is not waiting.
    private var writtenIn: [Int]
    /// Entries waiting for their reads, in the order they started waiting.
    private var waiting: [Int] = []
    /// Per read of the plan: the window it was last sent in; 0 when not yet.
    private var readIn: [Int]
    /// The windows recorded so far.
    private var windows = 0
    /// Where the next write's first register probably is (writes name the entries in order).
    private var hint = 0

    /// Nothing written yet, for `plan`'s entries and reads.
    public init(_ plan: ReplayPlan) {
        spans = plan.entries.map { AddressSpan(address: $0.address, length: $0.words.count) }
        writtenIn = [Int](repeating: 0, count: plan.entries.count)
        readIn = [Int](repeating: 0, count: plan.reads.count)
    }

    /// The reads (indices into `plan.reads`, ascending) to send after `window`'s writes: its planned reads when
    /// every write was sent (`sentBefore == window.writes.upperBound`), else those covering what was or may have
    /// been stored — `sentBefore` is the first write not sent, `unanswered` a write sent without an answer.
    public static func reads(
        after window: ReplayPlan.Window, in plan: ReplayPlan, sentBefore next: Int, unanswered: Int?
    ) -> [Int] {
        guard next < window.writes.upperBound else { return window.reads }
        var touched = Set(window.carriedIn)
        for k in window.writes.lowerBound..<next { touched.formUnion(plan.touched(plan.writes[k])) }
        if let unanswered { touched.formUnion(plan.touched(plan.writes[unanswered])) }
        return touched.sorted()
    }

    /// Records one window as sent — the writes `window.writes.lowerBound ..< sentBefore` acknowledged or
    /// refused, `unanswered` sent without an answer, then the reads `readsSent` — and returns the registers
    /// (indices into `plan.entries`) now ready to be checked, in the order they started waiting.
    public mutating func record(
        _ window: ReplayPlan.Window, in plan: ReplayPlan, sentBefore next: Int, unanswered: Int?, readsSent: [Int]
    ) -> [Int] {
        windows += 1
        for r in readsSent { readIn[r] = windows }
        for k in window.writes.lowerBound..<next { wrote(plan.writes[k], in: plan) }
        if let unanswered { wrote(plan.writes[unanswered], in: plan) }
        openReads.subtract(readsSent)
        return takeReady(plan)
    }

    /// Marks the registers `request` writes as waiting for reads sent after this window.
    private mutating func wrote(_ request: WriteRequest, in plan: ReplayPlan) {
        for id in request.registerIds {
            guard let i = plan.entryIndex(id, hint: hint) else { continue }
            hint = i + 1
            if writtenIn[i] == 0 { waiting.append(i) }
            writtenIn[i] = windows
        }
        openReads.formUnion(plan.touched(request))
    }

    /// The waiting registers whose every covering read was sent after their last write, removed from the wait.
    private mutating func takeReady(_ plan: ReplayPlan) -> [Int] {
        var ready: [Int] = []
        var kept = 0
        for k in waiting.indices {
            let i = waiting[k]
            let s = spans[i]
            var due = true
            for r in plan.touchedRange(address: s.address, end: s.end) where readIn[r] < writtenIn[i] {
                due = false
                break
            }
            if due {
                ready.append(i)
                writtenIn[i] = 0
            } else {
                waiting[kept] = i
                kept += 1
            }
        }
        waiting.removeLast(waiting.count - kept)
        return ready
    }
}
