// The database tests' victim: opens a Database in DIR and runs the steps given as arguments, printing one line
// per event on stdout (each line one write(2), so a syscall trace shows where it fell between the fsyncs).
//
//   lastset-store-probe DIR STEP...
//     round:N:W   W concurrent writes tagged round N; "ACK N i ok" / "ACK N i error <message>" as each returns,
//                 then "ROUND N commits=<commits made> writes=<writes acknowledged>"
//     quiet:N:W   W writes tagged round N, one after the other, each `durable: false` ("QACK N i ok" as each
//                 returns), then "QUIET N commits=<commits> nondurable=<commits without fsync>"
//     count:N     "COUNT N <rows of round N>"
//     arm:FILE    creates FILE (an LD_PRELOAD fault library watches for it)
//     mark:TEXT   "MARK TEXT"
//     crash       ends the process at once (_exit: no close, the WAL stays as a kill leaves it)
//     close       closes the database (checkpoint, WAL removed); later steps fail
import Foundation
import LastsetStore

#if canImport(Glibc)
    import Glibc
#endif

func say(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
}

let args = CommandLine.arguments
guard args.count >= 2 else {
    FileHandle.standardError.write(Data("usage: lastset-store-probe DIR STEP...\n".utf8))
    exit(64)
}
let schema = Schema(
    name: "the store probe's database", applicationID: 0x5052_4F42,
    migrations: [
        "CREATE TABLE rows (id INTEGER PRIMARY KEY, round INTEGER NOT NULL, writer INTEGER NOT NULL, payload BLOB) STRICT"
    ])
let database: Database
do {
    database = try Database(directory: URL(fileURLWithPath: args[1]), fileName: "probe.db", schema: schema)
} catch {
    say("OPEN error \(error)")
    exit(1)
}
say("READY")
for step in args.dropFirst(2) {
    let parts = step.split(separator: ":", maxSplits: 2).map(String.init)
    switch parts.first {
    case "round"?:
        let round = Int(parts[1])!
        let writers = Int(parts[2])!
        let before = database.statistics
        await withTaskGroup(of: Void.self) { group in
            for i in 0..<writers {
                group.addTask {
                    do {
                        try await database.write { c in
                            try c.run(
                                "INSERT INTO rows (round, writer, payload) VALUES (?, ?, ?)", .integer(round), .integer(i),
                                .blob([UInt8](repeating: UInt8(i & 0xFF), count: 512)))
                        }
                        say("ACK \(round) \(i) ok")
                    } catch {
                        say("ACK \(round) \(i) error \(error)")
                    }
                }
            }
        }
        let after = database.statistics
        say("ROUND \(round) commits=\(after.commits - before.commits) writes=\(after.writes - before.writes)")
    case "quiet"?:
        let round = Int(parts[1])!
        let writes = Int(parts[2])!
        let before = database.statistics
        for i in 0..<writes {
            do {
                try await database.write(durable: false) { c in
                    try c.run(
                        "INSERT INTO rows (round, writer, payload) VALUES (?, ?, ?)", .integer(round), .integer(i),
                        .blob([UInt8](repeating: 7, count: 64)))
                }
                say("QACK \(round) \(i) ok")
            } catch {
                say("QACK \(round) \(i) error \(error)")
            }
        }
        let after = database.statistics
        say(
            "QUIET \(round) commits=\(after.commits - before.commits) nondurable=\(after.nonDurableCommits - before.nonDurableCommits)")
    case "count"?:
        let round = Int(parts[1])!
        let n = try await database.read { c in
            try c.first("SELECT count(*) FROM rows WHERE round = ?", .integer(round)) { Int($0.int64(0)) } ?? 0
        }
        say("COUNT \(round) \(n)")
    case "arm"?:
        let fd = open(parts[1], O_WRONLY | O_CREAT, 0o600)
        if fd >= 0 { close(fd) }
    case "crash"?:
        say("CRASH")
        _exit(0)
    case "close"?:
        database.close()
        say("CLOSED")
    case "mark"?:
        say("MARK \(parts.dropFirst().joined(separator: ":"))")
    default:
        say("BAD STEP \(step)")
        exit(64)
    }
}
say("DONE")
