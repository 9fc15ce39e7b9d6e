import LastsetCore
import LastsetHTTP

/// One request as its route's handler sees it: the request, its path's parameters and who is calling.
struct APICall: Sendable {
    let request: HTTPRequest
    let parameters: RouteParameters
    /// The caller; nil on the session endpoints, which check the caller themselves.
    let principal: HTTPAuth.Principal?
    /// The access rules in force for this request.
    let auth: HTTPAuth
    /// The body as the access check parsed it (a route whose role depends on the body); nil otherwise.
    let parsedBody: RequestBody.Parsed?

    /// How the caller is named in jobs, templates and audit records.
    var who: String { principal?.name ?? "" }

    /// The path parameter `name` of the route (`{page}`); a route handler asking for one its pattern lacks is a
    /// defect of the table, answered 500 `internal`.
    func parameter(_ name: String) throws -> String {
        guard let value = parameters[name] else {
            throw APIError(status: 500, code: .internal, message: "the route \(request.path) has no parameter {\(name)}")
        }
        return value
    }

    /// A query value, nil when absent or empty.
    func query(_ name: String) -> String? { request.query[name].flatMap { $0.isEmpty ? nil : $0 } }

    /// A query flag: true when given as `?name`, `=1`, `=true` or `=yes` (any case), false otherwise.
    func flag(_ name: String) -> Bool {
        request.query[name].map { ["", "1", "true", "yes"].contains($0.lowercased()) } ?? false
    }

    /// The body decoded after `RequestBody`'s strict checks (unknown or repeated keys, nulls, non-boolean flags):
    /// a misspelt, null or doubled `dryRun` must never turn a dry run into a write. Parsed once: the access
    /// check's parse when it made one.
    func decode<T: Decodable & StrictKeys>(_ type: T.Type) throws(RequestBodyError) -> T {
        try RequestBody.decode(type, from: parsedBody ?? RequestBody.Parsed(request.body), shape: T.bodyShape)
    }
}

/// A request body whose shape is checked before decoding.
protocol StrictKeys {
    static var bodyShape: RequestBody.Shape { get }
}

extension CaptureRequest: StrictKeys {}
extension ApplyRequest: StrictKeys {}
extension ApplyAllRequest: StrictKeys {}
extension ScanRequest: StrictKeys {}
extension ChangeRequestBody: StrictKeys {}
extension ChangeSignatureBody: StrictKeys {}
extension ChangeApplyBody: StrictKeys {}

extension AuditChainAcknowledgment: StrictKeys {
    static var bodyShape: RequestBody.Shape { RequestBody.Shape(keys: ["reason"]) }
}

extension SignInRequest: StrictKeys {
    static var bodyShape: RequestBody.Shape { RequestBody.Shape(keys: ["token"]) }
}

extension HTTPResponse {
    private static let apiEncoder = APICoding.encoder()

    /// A JSON answer of the API (`APICoding`: sorted keys, ISO 8601 dates).
    static func api(_ status: Int, _ value: some Encodable) -> HTTPResponse {
        .json(status, value, encoder: apiEncoder)
    }

    /// A JSON answer already written by the fast writer (job bodies carry one result per register).
    static func api(_ status: Int, body: [UInt8]) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }
}
