

/// Plans the fewest read requests and the page-ordered write requests a device's limits allow.
public enum RequestPlanner {
    /// Merges spans into the fewest reads: never more than `maxReadRegisters` per request, gaps of at
    /// most `maxGap` unused registers bridged, a span never split across two requests.
    ///
    /// A gap is a run of addresses that belong to no span at all; spans may overlap or repeat. The
    /// greedy plan is minimal: the span with the lowest start not yet covered must be read by some
    /// request, and a request starting at that span's address (as long as the limits and gaps allow)
    /// covers every not-yet-covered span any such request could cover. A span longer than
    /// `maxReadRegisters` cannot be read whole: it alone is read in consecutive full-size chunks.
    /// Requests come out sorted by address.
    public static func reads(_ spans: [AddressSpan], limits: DeviceLimits) -> [AddressSpan] {
        let maxCount = Swift.max(1, limits.maxReadRegisters)
        let maxGap = Swift.max(0, limits.maxGap)
        let sorted = spans.filter { $0.length > 0 }.sorted {
            $0.address != $1.address ? $0.address < $1.address : $0.length > $1.length
        }
        guard !sorted.isEmpty else { return [] }

        // Union of all spans, then for each union segment the end of the chain of segments reachable
        // without crossing a gap wider than maxGap.
        var segments: [(start: Int, end: Int)] = []
        for span in sorted {
            if let last = segments.last, span.address <= last.end {
                segments[segments.count - 1].end = Swift.max(last.end, span.end)
            } else {
                segments.append((span.address, span.end))
            }
        }
        var reach = [Int](repeating: 0, count: segments.count)
        for i in stride(from: segments.count - 1, through: 0, by: -1) {
            let bridged = i + 1 < segments.count && segments[i + 1].start - segments[i].end <= maxGap
            reach[i] = bridged ? reach[i + 1] : segments[i].end
        }
        func reachFrom(_ address: Int) -> Int {
            // The segment holding `address`: the last one starting at or before it.
            var lo = 0
            var hi = segments.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) / 2
                if segments[mid].start <= address { lo = mid } else { hi = mid - 1 }
            }
            return reach[lo]
        }

        var requests: [AddressSpan] = []
        var covered = [Bool](repeating: false, count: sorted.count)
        var next = 0
        while next < sorted.count {
            if covered[next] {
                next += 1
                continue
            }
            let first = sorted[next]
            if first.length > maxCount {
                var address = first.address
                while address < first.end {
                    let count = Swift.min(maxCount, first.end - address)
                    requests.append(AddressSpan(address: address, length: count))
                    address += count
                }
                covered[next] = true
                next += 1
                continue
            }
            let limit = Swift.min(first.address + maxCount, reachFrom(first.address))
            var end = first.end
            var j = next
            while j < sorted.count && sorted[j].address < limit {
                if !covered[j] && sorted[j].end <= limit {
                    covered[j] = true
                    end = Swift.max(end, sorted[j].end)
                }
                j += 1
            }
            requests.append(AddressSpan(address: first.address, length: end - first.address))
            next += 1
        }
        return requests.sorted { $0.address != $1.address ? $0.address < $1.address : $0.length < $1.length }
    }

    /// Writes in the given (page) order; address-contiguous ascending runs merge into one FC16 of at
    /// most `maxWriteRegisters`; FC06 per register when `writeFunction` is fc06 (a multi-word value
    /// becomes one FC06 per word).
    ///
    /// `auto` uses FC16 for runs of two or more registers and for multi-word registers, FC06 for a
    /// lone single-word register; `fc16` always uses FC16. A register's words are never split across
    /// FC16 requests, except a register longer than the device's declared limit (`declaredMaxWrite`,
    /// `maxWriteRegisters` when not given), which is written alone in consecutive chunks of at most
    /// `maxWriteRegisters`. A register longer than `maxWriteRegisters` (a shorter limit learned or tried
    /// after a refused merged write) but not than the declared limit is written alone, whole: a refusal
    /// never splits a register's words (issue 19, defect 4). Writes with no words are dropped.
    public static func writes(_ writes: [PlannedWrite], limits: DeviceLimits, declaredMaxWrite: Int? = nil)
        -> [WriteRequest]
    {
        let maxCount = Swift.max(1, limits.maxWriteRegisters)
        let splitAbove = Swift.max(maxCount, declaredMaxWrite ?? maxCount)
        if limits.writeFunction == .fc06 {
            return writes.filter { !$0.words.isEmpty }.flatMap { w in
                w.words.enumerated().map { i, word in
                    WriteRequest(function: .fc06, address: w.address + i, words: [word], registerIds: [w.registerId])
                }
            }
        }
        // Runs kept as positions in `writes`, read in place (copying each write into a run array cost
        // a retain of its id and words per register).
        return writes.withUnsafeBufferPointer { ws in
            var requests: [WriteRequest] = []
            var run: [Int] = []
            var runEnd = 0
            var runWords = 0
            func flush() {
                guard let first = run.first else { return }
                defer { run.removeAll(keepingCapacity: true) }
                var words: [UInt16] = []
                words.reserveCapacity(runWords)
                for k in run { words.append(contentsOf: ws[k].words) }
                if words.count > splitAbove {
                    // Only a lone register longer than the declared limit gets here.
                    var offset = 0
                    while offset < words.count {
                        let count = Swift.min(maxCount, words.count - offset)
                        requests.append(
                            WriteRequest(
                                function: .fc16, address: ws[first].address + offset,
                                words: Array(words[offset..<offset + count]), registerIds: [ws[first].registerId]))
                        offset += count
                    }
                    return
                }
                // (A lone register longer than `maxCount` but not than the declared limit: whole.)
                let single = run.count == 1 && words.count == 1 && limits.writeFunction == .auto
                requests.append(
                    WriteRequest(
                        function: single ? .fc06 : .fc16, address: ws[first].address, words: words,
                        registerIds: run.map { ws[$0].registerId }))
            }
            for k in ws.indices {
                let count = ws[k].words.count
                guard count > 0 else { continue }
                let address = ws[k].address
                if !run.isEmpty && address == runEnd && runWords + count <= maxCount {
                    run.append(k)
                } else {
                    flush()
                    run.append(k)
                    runWords = 0
                }
                runEnd = address + count
                runWords += count
            }
            flush()
            return requests
        }
    }
}
