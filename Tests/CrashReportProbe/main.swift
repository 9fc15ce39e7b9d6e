// The crash report's victim: links CrashReport as the test binary does, then crashes on a named thread
// inside `failOnWorker()`, so CrashReportTests can check what the report names.
//
//   crash-report-probe abort|segv
import CrashReport
import Foundation

@inline(never)
func failOnWorker(_ how: String) {
    if how == "segv" {
        let nowhere = UnsafeMutablePointer<Int>(bitPattern: 8)!
        nowhere.pointee = 1
    }
    abort()
}

let how = CommandLine.arguments.dropFirst().first ?? "abort"
let worker = Thread { failOnWorker(how) }
worker.name = "probe worker"
worker.start()
sleep(30)
exit(0)
