import Foundation
import LastsetCore
import LastsetStore

/// The change requests of four-eyes change control (docs/CHANGE-CONTROL.md), newest last: one row of `change_request`
/// each, kept in memory for the API. Every step commits before it is answered, so an open request and its approvals
/// outlive a restart. An apply claims its request first (committed with the row), so one request is applied once: a
/// request still claimed when the store opens — its apply was running when the daemon stopped — is closed as `stale`
/// (it may have written; it must be requested and approved again), never applied a second time.
public actor ChangeRequestStore {
    /// The database holding the requests.
    public nonisolated let database: Database
    private var requests: [ChangeRequest] = []
    /// Requests whose apply is running.
    private var claimed: Set<String> = []
    /// Closed requests kept for listing (older closed ones are removed; the audit log keeps every step).
    public static let keptClosed = 500
    /// What an apply interrupted by a stop of the daemon leaves as the request's outcome.
    public static let interrupted =
        "interrupted: the daemon stopped while this request was being applied; it may have written part of it, so it cannot be applied again: request and approve the change again"
    /// Rows that could not be read at open (left out: such a request can be neither listed, signed nor applied).
    public private(set) var unreadable: [String] = []
    /// Requests closed as `stale` at open because their apply had been interrupted.
    public private(set) var closedAtOpen: [String] = []

    /// Reads every request; closes those whose apply was interrupted.
    public init(database: Database) throws(StorageError) {
        self.database = database
        var rows: [(ChangeRequest, Bool)] = []
        var unreadable: [String] = []
        do {
            try database.readNow { c in
                try c.rows("SELECT id, record, claimed FROM change_request ORDER BY filed_at, id") { row in
                    let decoded = row.text(1).flatMap { try? APICoding.decoder().decode(ChangeRequest.self, from: Data($0.utf8)) }
                    if let decoded { rows.append((decoded, row.int(2) == 1)) } else { unreadable.append(row.text(0) ?? "") }
                    return true
                }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        var interrupted: [ChangeRequest] = []
        for (request, wasClaimed) in rows where wasClaimed {
            var closed = request
            closed.state = .stale
            closed.outcome = Self.interrupted
            interrupted.append(closed)
        }
        if !interrupted.isEmpty {
            let encoded = try interrupted.map { request throws(StorageError) in (request.id, try Self.json(request, database)) }
            do {
                try database.writeNow { c in
                    for (id, bytes) in encoded {
                        try c.run("UPDATE change_request SET record = ?, claimed = 0 WHERE id = ?", .utf8(bytes), .text(id))
                    }
                }
            } catch {
                throw StorageError.of(error, database.path)
            }
        }
        let closed = Dictionary(uniqueKeysWithValues: interrupted.map { ($0.id, $0) })
        requests = rows.map { closed[$0.0.id] ?? $0.0 }
        closedAtOpen = interrupted.map(\.id)
        self.unreadable = unreadable
    }

    /// Files a request (committed before it is listed).
    public func add(_ request: ChangeRequest, at time: Date = Date()) async throws(StorageError) {
        let closed = requests.filter(\.state.isClosed)
        // The newest `keptClosed` closed requests stay; the request filed is open, so it does not count.
        let drop = closed.count > Self.keptClosed ? closed.prefix(closed.count - Self.keptClosed).map(\.id) : []
        let bytes = try Self.json(request, database)
        do {
            try await database.write { c in
                try c.run(
                    "INSERT INTO change_request (id, filed_at, claimed, record) VALUES (?, ?, 0, ?)", .text(request.id),
                    .integer(RecordStore.milliseconds(time)), .utf8(bytes))
                for id in drop { try c.run("DELETE FROM change_request WHERE id = ?", .text(id)) }
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
        requests.removeAll { drop.contains($0.id) }
        requests.append(request)
    }

    /// Every request, oldest first.
    public func list() -> [ChangeRequest] { requests }

    /// One request.
    public func get(_ id: String) -> ChangeRequest? { requests.first { $0.id == id } }

    /// Signs a request when `ChangeControl` allows it: the request after (committed), or the refusal; nil: no such
    /// request.
    public func sign(_ id: String, _ approval: Approval) async throws(StorageError) -> Result<ChangeRequest, ChangeRefusal>? {
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        if claimed.contains(id) { return .failure(.closed(requests[i].state)) }
        if let refusal = ChangeControl.signatureRefusal(
            requests[i], by: approval.who, meaning: approval.meaning, reason: approval.reason)
        {
            return .failure(refusal)
        }
        var signed = requests[i]
        signed.state = ChangeControl.state(of: signed, after: approval)
        signed.approvals.append(approval)
        try await save(signed, claimed: false)
        requests[i] = signed
        return .success(signed)
    }

    /// Claims a request for its apply when `ChangeControl` allows it (nil: no such request); the claim is committed
    /// before the apply may start, and `finish` releases it.
    public func claim(_ id: String) async throws(StorageError) -> Result<ChangeRequest, ChangeRefusal>? {
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        if claimed.contains(id) { return .failure(.closed(requests[i].state)) }
        if let refusal = ChangeControl.applyRefusal(requests[i]) { return .failure(refusal) }
        claimed.insert(id)
        do {
            try await save(requests[i], claimed: true)
        } catch {
            claimed.remove(id)
            throw error
        }
        return .success(requests[i])
    }

    /// Ends a claimed apply: the request's new state and what happened. Kept in memory even when its commit fails
    /// (thrown): the row then stays claimed, and the next open closes it as interrupted — never applied twice.
    @discardableResult
    public func finish(_ id: String, state: ChangeState, job: String?, outcome: String) async throws(StorageError)
        -> ChangeRequest?
    {
        claimed.remove(id)
        guard let i = requests.firstIndex(where: { $0.id == id }) else { return nil }
        requests[i].state = state
        requests[i].applyJob = job ?? requests[i].applyJob
        requests[i].outcome = outcome
        try await save(requests[i], claimed: false)
        return requests[i]
    }

    private func save(_ request: ChangeRequest, claimed: Bool) async throws(StorageError) {
        let bytes = try Self.json(request, database)
        do {
            try await database.write { c in
                try c.run(
                    "UPDATE change_request SET record = ?, claimed = ? WHERE id = ?", .utf8(bytes), .integer(claimed ? 1 : 0),
                    .text(request.id))
            }
        } catch {
            throw StorageError.of(error, database.path)
        }
    }

    private static func json(_ request: ChangeRequest, _ database: Database) throws(StorageError) -> [UInt8] {
        do {
            return [UInt8](try APICoding.encoder().encode(request))
        } catch {
            throw StorageError.of(error, database.path)
        }
    }
}
