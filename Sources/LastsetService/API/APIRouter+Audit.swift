import Foundation
import LastsetCore
import LastsetEngine
import LastsetFormats
import LastsetHTTP

/// `GET /v1/audit`: the audit log, filtered, this host's or the whole fleet's (docs/API.md).
extension APIRouter {
    /// The newest `?limit=` records (1…10000, default 100) matching the filters; `?hosts=all` merges every fleet
    /// host's log by time.
    func audit(_ call: APICall) async throws -> HTTPResponse {
        let query = call.request.query
        let limit = Int(query["limit"] ?? "100") ?? -1
        guard (1...10_000).contains(limit) else {
            throw APIError.badRequest(.badParameter, "limit \"\(query["limit"] ?? "")\" must be 1...10000")
        }
        let filter = try auditFilter(call)
        // Every filter is an indexed column: the newest `limit` matches, however old.
        let records: [AuditRecord]
        let bad: Int
        do {
            (records, bad) = try await engine.audit.read(limit: limit, matching: filter)
        } catch {
            throw APIError(status: 500, code: .storage, message: error.description)
        }
        switch query["hosts"] {
        case nil:
            return .api(200, AuditPage(records: Array(records.filter(filter.matches).suffix(limit)), unreadable: bad))
        case "all"?:
            guard let fleet else {
                throw APIError.conflict(.noFleet, "hosts=all needs a fleet; this host is in no fleet")
            }
            var all = records.filter(filter.matches).map { (fleet.settings.host, $0) }
            var unreadable = bad
            for other in await fleet.otherHostsAudit() {
                all += other.records.filter(filter.matches).map { (other.host, $0) }
                unreadable += other.unreadable
            }
            all.sort { ($0.1.time, $0.0) < ($1.1.time, $1.0) }
            let page = all.suffix(limit)
            return .api(200, AuditPage(records: page.map(\.1), unreadable: unreadable, hosts: page.map(\.0)))
        case let other?:
            throw APIError.badRequest(.badParameter, "hosts \"\(other)\" must be \"all\"")
        }
    }

    /// The query's filters: 400 `bad_parameter` for a time or a list that does not parse.
    private func auditFilter(_ call: APICall) throws -> AuditFilter {
        func date(_ key: String) throws -> Date? {
            guard let text = call.query(key) else { return nil }
            guard let date = TimeText.parseISO8601(text) else {
                throw APIError.badRequest(.badParameter, "\(key) \"\(text)\" is not an ISO 8601 time (2026-12-01T10:00:00Z)")
            }
            return date
        }
        func list<T: RawRepresentable & CaseIterable>(_ key: String, _ type: T.Type) throws -> Set<T>?
        where T.RawValue == String {
            guard let text = call.query(key) else { return nil }
            let (set, why) = AuditFilter.parseList(text, as: type)
            guard let set else { throw APIError.badRequest(.badParameter, "\(key): \(why ?? text)") }
            return set
        }
        return AuditFilter(
            page: call.query("page"), device: call.query("device"), who: call.query("who"), since: try date("since"),
            until: try date("until"), results: try list("result", AuditResult.self), kinds: try list("kind", AuditKind.self),
            job: call.query("job"))
    }
}

/// The audit chain (docs/AUDIT-CHAIN.md): `GET /v1/audit/verify`, `POST /v1/audit/acknowledge`.
extension APIRouter {
    /// Checks the whole chain (and, in a fleet, the heads this host published); a break nobody acknowledged marks
    /// the chain broken. The answer says whether writes are refused.
    func verifyAuditChain() async throws -> HTTPResponse {
        do {
            var report = try await engine.audit.verifyChain(published: await fleet?.publishedAuditHeads() ?? [])
            report.refusingWrites = try await engine.audit.chainBroken()
            return .api(200, report)
        } catch {
            throw APIError(status: 500, code: .storage, message: error.description)
        }
    }

    /// Records the administrator's acknowledgment (with its reason) of a broken chain; writing goes on after it.
    func acknowledgeAuditChain(_ call: APICall) async throws -> HTTPResponse {
        let body = try call.decode(AuditChainAcknowledgment.self)
        do {
            let record = try await engine.audit.acknowledgeChain(
                who: call.who, reason: body.reason, published: await fleet?.publishedAuditHeads() ?? [])
            return .api(200, record)
        } catch {
            switch error {
            case .noReason: throw APIError(status: 422, code: .missingReason, message: error.description)
            case .intact: throw APIError(status: 409, code: .auditChainIntact, message: error.description)
            case .storage(let e): throw APIError(status: 500, code: .storage, message: e.description)
            }
        }
    }
}
