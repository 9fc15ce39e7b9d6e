import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats
import LastsetHTTP

/// The daemon's own routes: metrics, reload, fleet sync, database backup (docs/API.md).
extension APIRouter {
    /// `GET /v1/metrics`: the devices' health and link counters in Prometheus text.
    func metrics() async -> HTTPResponse {
        let body = Array(MetricsText.render(await registry.statuses()).utf8)
        return HTTPResponse(status: 200, headers: ["Content-Type": MetricsText.contentType], body: body)
    }

    /// `POST /v1/reload`: the config re-read, checked and swapped in; 422 `config_invalid` keeps the running one.
    func reloadConfig() async throws -> HTTPResponse {
        switch await reload() {
        case .reloaded(let result): return .api(200, result)
        case .refused(let file, let problems):
            let list = problems.joined(separator: "\n")
            throw APIError.unprocessable(
                .configInvalid,
                "config reload refused, keeping the running config: \(problems.count) problem\(problems.count == 1 ? "" : "s") in \(file)\n\(list)"
            )
        }
    }

    /// `POST /v1/sync`: the fleet repository synced now; 409 `no_fleet` on a host in no fleet.
    func sync() async throws -> HTTPResponse {
        guard let fleet else {
            throw APIError.conflict(.noFleet, "this host is in no fleet: the config has no \"fleet\" section")
        }
        return .api(200, await fleet.sync())
    }

    /// `POST /v1/backup`: a consistent copy of `lastset.db` made now (SQLite's online backup, jobs keep running),
    /// checked, and sent back as the body from an unlinked file in the data directory (never held in memory); the
    /// client writes it where it wants (the daemon's file system is read-only outside its data directory).
    func backup(_ call: APICall) async throws -> HTTPResponse {
        let body = call.request.body.filter { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        guard body.isEmpty || body == Array("{}".utf8) else {
            throw APIError.badRequest(
                .unexpectedBody,
                "POST /v1/backup takes no body (or {}): the copy is sent back in the response and the client writes it where it wants"
            )
        }
        let made: RecordBackup
        do {
            made = try await RecordBackup.make(database: engine.database)
        } catch {
            errorLog("backup for \(call.who) failed: \(error)")
            throw APIError(status: 500, code: .backupFailed, message: "cannot back up the database: \(error)")
        }
        let taken = TimeText.iso8601(made.takenAt)
        let stamp = taken.filter { $0.isNumber }.prefix(14)
        let headers: HTTPHeaders = [
            "Content-Type": "application/vnd.sqlite3",
            "Content-Disposition": "attachment; filename=\"lastset-\(stamp).db\"",
            "Cache-Control": "no-store",
            "X-Lastset-SHA256": made.sha256,
            "X-Lastset-Schema-Version": "\(made.schemaVersion)",
            "X-Lastset-Database": made.databasePath,
            "X-Lastset-Taken-At": taken,
        ]
        return HTTPResponse(
            status: 200, headers: headers, file: HTTPResponseFile(descriptor: made.descriptor, size: UInt64(made.bytes)))
    }
}
