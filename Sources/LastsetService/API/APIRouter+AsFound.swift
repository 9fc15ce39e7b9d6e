import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP

/// The as-found history of a device (docs/AS-FOUND.md, docs/API.md "As-found records").
extension APIRouter {
    /// `GET /v1/devices/{id}/as-found?page=P&limit=N`: the schedule, the last attempt and the records, newest first.
    func listAsFound(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        guard let device = await registry.config.device(id) else { throw Self.unknownDevice(id) }
        let pageId = call.query("page")
        if let pageId, !device.has(page: pageId) {
            throw APIError.unprocessable(.pageNotOnDevice, "device \"\(id)\" does not have page \"\(pageId)\"")
        }
        let limitText = call.query("limit") ?? "100"
        guard let limit = Int(limitText), (1...10_000).contains(limit) else {
            throw APIError.badRequest(.badParameter, "limit \"\(limitText.prefix(20))\" is not in 1...10000")
        }
        let store = engine.asFound
        let attempt = try await store.attempt(device: id)
        let records = try await store.list(device: id, pageId: pageId, limit: limit)
        return .api(
            200,
            AsFoundListing(
                device: id, backup: device.config.backup, lastAttempt: attempt?.at, failure: attempt?.failure,
                records: records))
    }

    /// `GET /v1/devices/{id}/as-found/{page}/{number}`: one record with every value.
    func showAsFound(_ call: APICall) async throws -> HTTPResponse {
        let (id, pageId, numberText) = (try call.parameter("id"), try call.parameter("page"), try call.parameter("number"))
        guard let number = Int(numberText), number >= 1 else {
            throw APIError.badRequest(.badParameter, "record number \"\(numberText.prefix(20))\" is not a number from 1")
        }
        guard let record = try await engine.asFound.record(device: id, pageId: pageId, number: number) else {
            throw APIError.notFound(.notFound, "device \"\(id)\" has no as-found record \(number) of page \"\(pageId)\"")
        }
        return .api(200, record)
    }

    /// `POST /v1/devices/{id}/as-found`: reads every page of the device as found now (a job of kind `backup`); 202
    /// with the running job, 200 with the finished one under `?wait`.
    func takeAsFound(_ call: APICall) async throws -> HTTPResponse {
        let id = try call.parameter("id")
        try ensureAccepting()
        guard let snapshot = await registry.snapshot(device: id) else { throw Self.unknownDevice(id) }
        guard !snapshot.device.pageIds.isEmpty else {
            throw APIError.unprocessable(.noPages, "device \"\(id)\" has no pages to read as found")
        }
        let wait = call.flag("wait")
        let job = try await deviceJobs.backUp(snapshot, who: call.who, wait: wait)
        return .api(wait ? 200 : 202, body: APICoding.json(job))
    }
}
