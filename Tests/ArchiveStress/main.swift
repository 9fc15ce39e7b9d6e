// A writer for the crash test: archives templates of one page in a loop, each with its audit record in the same
// commit (as a capture does), and prints "STORED <version>" after each durable store, until killed.
// Usage: lastset-archive-stress DATA_DIR [ENTRIES]
import Foundation
import LastsetCore
import LastsetEngine

let args = CommandLine.arguments
guard args.count >= 2 else {
    FileHandle.standardError.write(Data("usage: lastset-archive-stress DATA_DIR [ENTRIES]\n".utf8))
    exit(64)
}
let entryCount = args.count >= 3 ? Int(args[2]) ?? 200 : 200
let archive = try TemplateArchive(database: RecordStore.open(dataDirectory: URL(fileURLWithPath: args[1])), historyLimit: 5)
var round = 0
while true {
    round += 1
    let entries = (0..<entryCount).map { i in
        let word = UInt16(truncatingIfNeeded: round &* 31 &+ i)
        return TemplateEntry(
            registerId: "r\(i)", address: i, length: 1, valueData: [word].bigEndianBytes.hexString,
            value: .unsigned(UInt64(word)),
            lastDate: Date())
    }
    let template = Template(
        pageId: "stress", pageHash: "sha256:test", version: 0, capturedAt: Date(), capturedBy: "stress",
        source: TemplateSource(deviceId: "d", endpoint: "tcp://127.0.0.1:1", unit: 1, identity: []), entries: entries, skipped: []
    )
    let stored = try await archive.store(template) { t in
        AuditRecord(
            time: Date(), kind: .capture, who: "stress", pageId: t.pageId, device: "d", endpoint: t.source.endpoint, unit: 1,
            identity: [], templateVersion: t.version, pageHash: t.pageHash, result: .archived, message: nil,
            registers: t.entries.map { AuditRegister(registerId: $0.registerId, before: nil, after: $0.value, status: .captured) },
            job: UUID().uuidString, templateVersionId: t.versionId.id)
    }
    FileHandle.standardOutput.write(Data("STORED \(stored.version)\n".utf8))
}
