import LastsetCore
import ModbusLink

/// One verification window on the wire: its writes, then its reads, in one hop onto the connection's executor.
extension Replay {
    /// What one window did on the device.
    struct WindowOutcome: Sendable {
        /// Journal events of the window's writes, in order.
        var events: [ReplayEvent] = []
        /// Index (in the plan) of the first write not sent.
        var next = 0
        /// The failing write: its index, error and answer.
        var failure: (index: Int, error: ModbusError, answer: WriteAnswer)?
        /// Shutdown stopped it between two writes.
        var cancelled = false
        /// The journal refused a write's intent: that write was not sent.
        var journalFailed = false
        /// Words read back, and read frames sent.
        var readout = PageReadout()
        /// The reads sent (indices into the plan's reads).
        var readsSent: [Int] = []

        /// The failed write when it was sent and got no answer (it may have been stored).
        var unanswered: Int? { failure.flatMap { $0.answer == .noAnswer ? $0.index : nil } }
    }

    /// Sends one window's writes (until one fails, shutdown, or the journal refuses) and then its
    /// reads — the window's due reads when every write went through, else the reads covering what was
    /// sent (`ReadBackReadiness.reads`) — in one hop onto the connection's executor.
    func sendWindow(_ window: ReplayPlan.Window, plan: ReplayPlan, spans: [AddressSpan], acked: Int, total: Int) async
        -> WindowOutcome
    {
        let unit = target.unit
        let link = target.linkOptions
        let sink = journaling ? self.sink : nil
        let progress = self.progress
        let target = self.target
        return await target.connection.batch { c in
            var out = WindowOutcome()
            out.next = window.writes.lowerBound
            var done = acked
            for k in window.writes {
                if Task.isCancelled {
                    out.cancelled = true
                    break
                }
                let request = plan.writes[k]
                let recorded = PlannedRequest(request)
                let intent = ReplayEvent(.write, request: recorded)
                if let sink, !sink.record(intent, true) {
                    out.journalFailed = true
                    break
                }
                out.events.append(intent)
                let sent = SentWrite.send(request, unit: unit, options: link, on: c)
                let event = sent.event(.answer, request: recorded)
                if let sink { _ = sink.record(event, false) }
                out.events.append(event)
                if let error = sent.error {
                    out.failure = (k, error, sent.answer)
                    break
                }
                out.next = k + 1
                done += request.registerIds.count
                progress?(JobProgress(phase: .writing, done: min(done, total), total: total))
            }
            let reads = ReadBackReadiness.reads(after: window, in: plan, sentBefore: out.next, unanswered: out.unanswered)
            out.readout = PageReadout(
                covering: (reads.map { plan.reads[$0].address }.min() ?? 0)..<(reads.map { plan.reads[$0].end }.max() ?? 0))
            for r in reads {
                PageReader.perform(plan.reads[r], spans: spans, into: &out.readout, on: c, target: target)
                out.readsSent.append(r)
            }
            return out
        }
    }
}
