import Foundation
import LastsetCore
import LastsetFormats

extension GrowthBench {
    /// Writes the hub the other hosts made (a bare repository) with `git fast-import`: for each host, one commit per
    /// quarter adding a quarter of its versions of every page and its audit file as it stood at the quarter's end.
    struct HubWriter {
        let path: URL

        func write() throws {
            try shell(["init", "-q", "--bare", "-b", "main", path.path], in: path.deletingLastPathComponent())
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/git")
            p.arguments = ["-C", path.path, "fast-import", "--quiet", "--done"]
            var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("GIT_") }
            env["GIT_CONFIG_GLOBAL"] = "/dev/null"
            env["GIT_CONFIG_NOSYSTEM"] = "1"
            p.environment = env
            let input = Pipe()
            p.standardInput = input
            try p.run()
            let out = input.fileHandleForWriting
            for h in 1..<hosts {
                let lines = auditLines(host(h))
                for quarter in 0..<4 {
                    out.write(commit(host: h, quarter: quarter, auditBytes: lines[0..<lines.count * (quarter + 1) / 4]))
                }
            }
            out.write(Data("done\n".utf8))
            try out.close()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { fatalError("git fast-import exited \(p.terminationStatus)") }
        }

        /// The host's year of audit records as its audit file's lines (each ending in a newline).
        private func auditLines(_ host: String) -> [[UInt8]] {
            var out: [[UInt8]] = []
            for d in 0..<365 {
                for n in 0..<recordsPerDay {
                    var w = JSONWriter(capacity: 2048)
                    auditRecord(day: d, n: n).write(to: &w)
                    out.append(w.bytes + [0x0A])
                }
            }
            return out
        }

        private func commit(host h: Int, quarter: Int, auditBytes: ArraySlice<[UInt8]>) -> Data {
            let name = host(h)
            let at = yearStart.addingTimeInterval(Double(quarter + 1) * 91 * day)
            let message = "\(name): quarter \(quarter + 1)"
            var s = Data(
                "commit refs/heads/main\ncommitter lastsetd on \(name) <lastsetd@\(name)> \(Int(at.timeIntervalSince1970)) +0000\ndata \(message.utf8.count)\n\(message)\n"
                    .utf8)
            for number in (versions * quarter / 4 + 1)...(versions * (quarter + 1) / 4) {
                for page in 0..<pages {
                    let archived = yearStart.addingTimeInterval(Double(h * 1_000_000 + number * pages + page))
                    let t = template(page: page, number: number, host: name, at: archived)
                    file(&s, "templates/page\(page)/\(t.versionId.fileName)", TemplateFile.encode(t))
                }
            }
            file(&s, "audit/\(name).jsonl", Data(auditBytes.joined()))
            s.append(0x0A)
            return s
        }

        private func file(_ s: inout Data, _ path: String, _ content: Data) {
            s.append(Data("M 100644 inline \(path)\ndata \(content.count)\n".utf8))
            s.append(content)
            s.append(0x0A)
        }
    }
}
