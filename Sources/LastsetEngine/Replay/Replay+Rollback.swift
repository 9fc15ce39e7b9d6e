import LastsetCore

/// The rollback of `onError: rollback`.
extension Replay {
    /// Restores every register a frame of this replay may have changed (acknowledged or in doubt; a
    /// refused frame stored nothing) to its snapshot value, then verifies, even when shutdown was
    /// requested (a rollback must finish).
    mutating func rollBack() async {
        let touched = ledger.touchedIndices.map { ledger.fate(at: $0) }
        guard !touched.isEmpty else { return }
        progress?(JobProgress(phase: .rollingBack, done: 0, total: touched.count))
        var limits = plan?.writeLimits ?? target.limits
        if report.fellBackToFC06 { limits.writeFunction = .fc06 }
        let restores = touched.compactMap { f -> PlannedWrite? in
            f.beforeData.flatMap { [UInt16](valueDataHex: $0) }.map {
                PlannedWrite(registerId: f.registerId, address: f.address, words: $0)
            }
        }
        for request in RequestPlanner.writes(restores, limits: limits, declaredMaxWrite: target.limits.maxWriteRegisters) {
            let unit = target.unit
            let link = target.linkOptions
            let sent = await target.connection.batch { c in SentWrite.send(request, unit: unit, options: link, on: c) }
            record(sent.event(.restore, request: PlannedRequest(request)))
        }
        let spans = touched.map { AddressSpan(address: $0.address, length: $0.length) }
        let readback = await PageReader.read(spans, from: target, evenIfCancelled: true)
        readFrames += readback.requests
        record(
            ReplayEvent(
                .restoreCheck,
                checks: touched.map { f in
                    let s = AddressSpan(address: f.address, length: f.length)
                    return JournalCheck(
                        registerId: f.registerId, data: readback.hex(for: s),
                        message: readback.failure(for: s).map(String.init(describing:)))
                }))
        progress?(JobProgress(phase: .rollingBack, done: touched.count, total: touched.count))
    }
}
