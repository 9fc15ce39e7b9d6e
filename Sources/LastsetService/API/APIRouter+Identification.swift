import LastsetCore
import LastsetEngine
import LastsetHTTP
import ModbusLink

/// `GET /v1/identify`: a device's FC43/14 identification, read under its job lock (docs/API.md).
extension APIRouter {
    /// `?device=ID`, or `?endpoint=ENDPOINT&unit=N` (unit 1 by default) for a machine not in the config.
    func identify(_ call: APICall) async throws -> HTTPResponse {
        let query = call.request.query
        let target: DeviceTarget
        switch (query["device"], query["endpoint"]) {
        case (let id?, nil):
            guard query["unit"] == nil else {
                throw APIError.badRequest(.badParameter, "\"unit\" goes with \"endpoint\", not with \"device\"")
            }
            guard let snapshot = await registry.snapshot(device: id) else { throw Self.unknownDevice(id) }
            target = snapshot.target
        case (nil, let text?):
            let unitText = query["unit"] ?? "1"
            guard let number = Int(unitText) else {
                throw APIError.badRequest(.badUnit, "unit \"\(unitText.prefix(20))\" is not in 1...247")
            }
            let (endpoint, unit) = try adHocTarget(endpoint: text, unit: number)
            target = await registry.adHoc(endpoint: endpoint, unit: unit).target
        case (nil, nil):
            throw APIError.badRequest(.missingTarget, "give device=ID (a configured id) or endpoint=ENDPOINT (+ unit=N)")
        case (_?, _?):
            throw APIError.badRequest(.badParameter, "give either device or endpoint, not both")
        }
        let (read, requests) = try await deviceJobs.identify(target)
        switch read {
        case .success(let identification):
            return .api(
                200,
                IdentifyReport(
                    device: target.deviceId, endpoint: target.endpoint.description, unit: target.unit,
                    conformity: identification.conformity, objects: identification.objects, requests: requests))
        case .failure(let error):
            let unsupported = error.exceptionCode == 1
            throw APIError(
                status: 502, code: unsupported ? .identificationUnsupported : .identificationFailed,
                message:
                    "cannot identify \(target.label): \(error)\(unsupported ? " (the device has no Read Device Identification)" : "")"
            )
        }
    }
}
