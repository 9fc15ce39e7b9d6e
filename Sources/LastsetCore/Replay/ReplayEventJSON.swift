import Foundation
import LastsetFormats

extension ReplayEvent {
    /// The event as one journal line (without the line break): its one declaration (`JSONRecord`) written with
    /// `JSONWriter` — the intent of a 10,000-register replay lists every register, and `JSONEncoder` spent more on
    /// that one line than the replay's own work.
    public var journalLine: [UInt8] {
        var w = JSONWriter(
            capacity: 256 + (intent?.registers.count ?? 0) * 160 + (checks?.count ?? 0) * 64 + (requests?.count ?? 0) * 96
                + (request?.registerIds.count ?? 0) * 16)
        write(to: &w)
        return w.bytes
    }
}
