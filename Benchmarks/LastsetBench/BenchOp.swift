import LastsetCore

/// One request of a baseline's replay: an FC16 write or an FC03 read of `count` registers at `address`.
struct BenchOp {
    var write: Bool
    var address: Int
    var count: Int

    /// Lastset's replay of `page` as requests, from its pure plan (`ReplayPlan`): the "before" snapshot
    /// (the read plan), the verification windows (writes, then the reads no later write touches), and
    /// the final verification pass (the read plan again).
    static func replay(of page: CompiledPage, limits: DeviceLimits) -> (ops: [BenchOp], counts: ReplayPlan.Counts) {
        // The bench's pages are writable throughout: every register is an entry.
        let entries = page.registers.map {
            PlannedWrite(
                registerId: $0.registerId, address: $0.definition.address,
                words: [UInt16](repeating: 0, count: $0.definition.length))
        }
        let plan = ReplayPlan(entries: entries, limits: limits)
        let reads = plan.reads.map { BenchOp(write: false, address: $0.address, count: $0.end - $0.address) }
        var ops = reads
        for window in plan.windows() {
            for k in window.writes {
                ops.append(BenchOp(write: true, address: plan.writes[k].address, count: plan.writes[k].words.count))
            }
            ops += window.reads.map { reads[$0] }
        }
        ops += reads
        return (ops, plan.counts)
    }
}
