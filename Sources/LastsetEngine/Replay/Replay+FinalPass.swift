import LastsetCore

/// The final verification pass.
extension Replay {
    /// Reads every written register once more: a value that changed after its own verification (a
    /// drive resetting dependent parameters) is reported `changedLater`.
    mutating func finalPass() async {
        guard plan != nil else { return }
        let written = ledger.touchedIndices
        guard !written.isEmpty else { return }
        progress?(JobProgress(phase: .verifying, done: 0, total: written.count))
        let spans = written.map { ledger.span(at: $0) }
        let readout = await PageReader.read(spans, from: target)
        readFrames += readout.requests
        // Recorded from the words; the hex made only for the journal's line.
        let journals = journaling
        var checks: [JournalCheck] = []
        if journals { checks.reserveCapacity(written.count) }
        for (i, s) in zip(written, spans) {
            if readout.withWords(for: s, { ledger.recordCheck(at: i, words: $0, final: true) }) != nil {
                if journals { checks.append(JournalCheck(registerId: ledger.registerId(at: i), data: readout.hex(for: s))) }
            } else {
                let cause = readout.failure(for: s).map(String.init(describing:)) ?? "not read"
                ledger.recordCheck(at: i, words: nil, message: cause, final: true)
                if journals { checks.append(JournalCheck(registerId: ledger.registerId(at: i), data: nil, message: cause)) }
            }
        }
        if journals { journal(ReplayEvent(.finalCheck, checks: checks)) }
        progress?(JobProgress(phase: .verifying, done: written.count, total: written.count))
    }
}
