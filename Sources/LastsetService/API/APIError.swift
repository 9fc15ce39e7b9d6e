import LastsetHTTP

/// An API failure with its HTTP status and stable code (see docs/API.md).
struct APIError: Error {
    var status: Int
    var code: String
    var message: String

    var response: HTTPResponse { .error(status, code: code, message: message) }

    static func notFound(_ what: String) -> APIError { APIError(status: 404, code: "not_found", message: what) }
    static func badRequest(_ code: String, _ message: String) -> APIError { APIError(status: 400, code: code, message: message) }
    static func unprocessable(_ code: String, _ message: String) -> APIError {
        APIError(status: 422, code: code, message: message)
    }
    static func conflict(_ code: String, _ message: String) -> APIError { APIError(status: 409, code: code, message: message) }
}
