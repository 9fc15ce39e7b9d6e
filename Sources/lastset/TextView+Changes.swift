import LastsetCore
import LastsetFormats

extension TextView {
    /// `lastset change list`.
    static func changes(_ all: [ChangeRequest]) -> [String] {
        guard !all.isEmpty else { return ["no change requests"] }
        var table = Table([.init("ID"), .init("STATE"), .init("PAGE"), .init("DEVICE"), .init("VERSION"), .init("REQUESTED BY")])
        for r in all {
            table.append([r.id, r.state.rawValue, r.pageId, r.device, r.versionId, r.requested.who])
        }
        return table.lines
    }

    /// `lastset change show|request|approve`: the request, its signatures and the diff in view.
    static func change(_ r: ChangeRequest) -> [String] {
        var lines = [
            "change \(r.id): \(r.state.rawValue) — \(r.pageId) version \(r.versionId) on \(r.device)",
            "hash \(r.hash)",
        ]
        for s in [r.requested] + r.approvals {
            lines.append("\(s.meaning.rawValue) by \(s.who) at \(TimeText.iso8601(s.time)): \(s.reason)")
        }
        if let outcome = r.outcome { lines.append("outcome: \(outcome)") }
        return lines + registerTable(r.plan.registers, planned: true)
    }
}
