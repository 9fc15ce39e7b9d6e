/// The fewest requests a device's limits allow, computed independently of Lastset's planner (by
/// dynamic programming over the page's registers, not by the greedy plan), to check its counts.
enum MinimumPlan {
    /// Fewest reads covering every register: a request reads at most `maxRead` registers, bridges no
    /// gap wider than `maxGap`, never splits a register (one longer than `maxRead` is read alone in chunks).
    static func reads(_ page: BenchPage, maxRead: Int, maxGap: Int) -> Int {
        let spans = page.registers.sorted { $0.address < $1.address }
        let n = spans.count
        var best = [Int](repeating: Int.max, count: n + 1)
        best[0] = 0
        for j in 1...max(1, n) where n > 0 {
            let last = spans[j - 1]
            if last.length > maxRead {
                best[j] = best[j - 1] + (last.length + maxRead - 1) / maxRead
                continue
            }
            var i = j - 1
            while i >= 0 {
                let first = spans[i]
                if last.address + last.length - first.address > maxRead || first.length > maxRead { break }
                if i < j - 1 {
                    let next = spans[i + 1]
                    if next.address - (first.address + first.length) > maxGap { break }
                }
                if best[i] != Int.max { best[j] = min(best[j], best[i] + 1) }
                i -= 1
            }
        }
        return best[n]
    }

    /// Fewest writes of every register in page order: only address-contiguous neighbours can share an
    /// FC16 of at most `maxWrite` registers.
    static func writes(_ page: BenchPage, maxWrite: Int) -> Int {
        var count = 0
        var runEnd = -1
        var used = 0
        for r in page.registers {
            if r.address == runEnd && used + r.length <= maxWrite {
                used += r.length
            } else {
                count += max(1, (r.length + maxWrite - 1) / maxWrite)
                used = r.length > maxWrite ? maxWrite : r.length
            }
            runEnd = r.address + r.length
        }
        return count
    }
}
