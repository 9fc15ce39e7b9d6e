import LastsetCore

/// Four-eyes change control inside the replay (docs/CHANGE-CONTROL.md): the `ChangeHash` of what this replay read
/// and planned, computed after the snapshot and the plan and before the intent, so an approved apply compares the
/// very words it read with the approved hash, and nothing is written when they differ.
extension Replay {
    /// Hashes the plan into the report; false (refused, "stale approval", nothing written) when the options carry
    /// an approved hash and this one differs.
    mutating func checkChangeHash() -> Bool {
        var registers: [ChangeHash.Register] = []
        registers.reserveCapacity(ledger.count)
        for i in 0..<ledger.count {
            let fate = ledger.fate(at: i)
            registers.append(
                ChangeHash.Register(
                    registerId: fate.registerId, address: fate.address, expectedData: fate.expectedData,
                    asFoundData: fate.beforeData))
        }
        let hash = ChangeHash.of(
            ChangeHash.Subject(
                device: target.label, endpoint: target.endpoint.description, unit: target.unit, pageId: page.id,
                pageHash: template.pageHash, versionId: template.versionId.id,
                identity: report.identity.map { ($0.registerId, $0.actual?.description) }, registers: registers,
                plan: (plan?.writes ?? []).map(PlannedRequest.init)))
        report.changeHash = hash
        guard let approved = options.changeHash, approved != hash else { return true }
        report.status = .refused
        report.reason =
            "stale approval: the machine's values, the template or the plan changed since the change request was approved (approved \(approved), now \(hash)); nothing written"
        return false
    }
}
