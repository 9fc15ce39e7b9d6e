import Foundation
import LastsetFormats

// Job bodies written with `JSONWriter`, following each shape's one declaration (`JSONRecord`): a finished replay
// of a large page carries one result per register, and with `JSONEncoder` the answer alone cost more than the
// replay's CPU work.

extension APICoding {
    /// One job as a JSON body (newline-terminated).
    public static func json(_ job: JobInfo) -> [UInt8] {
        var w = JSONWriter(capacity: 1024 + (job.replay?.registers.count ?? job.capture?.skipped.count ?? 0) * 160)
        job.write(to: &w)
        return w.line()
    }

    /// A list of jobs as a JSON body (newline-terminated).
    public static func json(_ jobs: [JobInfo]) -> [UInt8] {
        var w = JSONWriter(capacity: 4096)
        jobs.write(to: &w)
        return w.line()
    }

    /// A replay report as a JSON body (newline-terminated).
    public static func json(_ report: ReplayReport) -> [UInt8] {
        var w = JSONWriter(capacity: 1024 + report.registers.count * 160)
        report.write(to: &w)
        return w.line()
    }
}
