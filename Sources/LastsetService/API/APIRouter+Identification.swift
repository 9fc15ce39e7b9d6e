import LastsetCore
import LastsetEngine
import ModbusLink

/// `GET /v1/identify`: a device's FC43/14 identification, read under its job lock (docs/API.md).
extension APIRouter {
    /// `?device=ID`, or `?endpoint=ENDPOINT&unit=N` (unit 1 by default) for a machine not in the config.
    func identify(query: [String: String]) async throws -> IdentifyReport {
        let target: DeviceTarget
        switch (query["device"], query["endpoint"]) {
        case (let id?, nil):
            guard query["unit"] == nil else {
                throw APIError.badRequest("bad_parameter", "\"unit\" goes with \"endpoint\", not with \"device\"")
            }
            guard let snapshot = await registry.snapshot(device: id) else { throw unknownDevice(id) }
            target = snapshot.target
        case (nil, let text?):
            let unitText = query["unit"] ?? "1"
            guard let number = Int(unitText) else {
                throw APIError.badRequest("bad_unit", "unit \"\(unitText.prefix(20))\" is not in 1...247")
            }
            let (endpoint, unit) = try adHocTarget(endpoint: text, unit: number)
            target = await registry.adHoc(endpoint: endpoint, unit: unit).target
        case (nil, nil):
            throw APIError.badRequest("missing_target", "give device=ID (a configured id) or endpoint=ENDPOINT (+ unit=N)")
        case (_?, _?):
            throw APIError.badRequest("bad_parameter", "give either device or endpoint, not both")
        }
        try await hold(target, for: .identityRead)
        let (read, requests) = await IdentificationReader.read(upTo: .extended, from: target)
        await registry.release(target.lock)
        switch read {
        case .success(let identification):
            return IdentifyReport(
                device: target.deviceId, endpoint: target.endpoint.description, unit: target.unit,
                conformity: identification.conformity, objects: identification.objects, requests: requests)
        case .failure(let error):
            let code = error.exceptionCode == 1 ? "identification_unsupported" : "identification_failed"
            let why = error.exceptionCode == 1 ? " (the device has no Read Device Identification)" : ""
            throw APIError(status: 502, code: code, message: "cannot identify \(target.label): \(error)\(why)")
        }
    }
}
