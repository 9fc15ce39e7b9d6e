import LastsetCore
import LastsetEngine
import LastsetHTTP

/// An API failure with its HTTP status and stable code (see docs/API.md, "Errors"). Every failure a route
/// throws becomes its answer through `init(_:)` and `response`: the router's one path from an error to HTTP.
struct APIError: Error {
    var status: Int
    var code: APIErrorCode
    var message: String
    /// The methods the path allows (405 answers: the `Allow` header).
    var allow: [String] = []

    init(status: Int, code: APIErrorCode, message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// The error body, with `Allow` on a 405.
    var response: HTTPResponse {
        var response = HTTPResponse.error(status, code: code, message: message)
        if !allow.isEmpty { response.headers.add(name: "Allow", value: allow.joined(separator: ", ")) }
        return response
    }

    static func notFound(_ code: APIErrorCode = .notFound, _ message: String) -> APIError {
        APIError(status: 404, code: code, message: message)
    }
    static func badRequest(_ code: APIErrorCode, _ message: String) -> APIError {
        APIError(status: 400, code: code, message: message)
    }
    static func unprocessable(_ code: APIErrorCode, _ message: String) -> APIError {
        APIError(status: 422, code: code, message: message)
    }
    static func conflict(_ code: APIErrorCode, _ message: String) -> APIError {
        APIError(status: 409, code: code, message: message)
    }

    /// 405 `method_not_allowed` for a known path: `allowed` goes into the message and the `Allow` header.
    static func methodNotAllowed(_ method: String, path: String, allowed: [String]) -> APIError {
        var error = APIError(
            status: 405, code: .methodNotAllowed,
            message: "\(method) is not allowed on \(path) (allowed: \(allowed.joined(separator: ", ")))")
        error.allow = allowed
        return error
    }

    /// The answer to any error a route throws: the engine's typed errors by their cases, a request body's by its
    /// code, anything unforeseen 500 `internal`.
    init(_ error: any Error) {
        switch error {
        case let error as APIError: self = error
        case let error as ArchiveError: self = Self(archive: error, message: error.description)
        case let error as HistoryError:
            switch error {
            case .archive(let e): self = Self(archive: e, message: e.description)
            case .alreadyLatest: self = .conflict(.alreadyLatest, error.description)
            case .inUse: self = .conflict(.versionInUse, error.description)
            case .otherDefinition: self = .unprocessable(.invalidTemplate, error.description)
            }
        case let error as IOSImportError:
            switch error {
            case .invalid: self = .unprocessable(.invalidArchive, error.description)
            case .archive(let e): self = Self(archive: e, message: e.description)
            }
        case let error as RequestBodyError: self = .badRequest(error.code, error.message)
        case let error as JobRefusal:
            switch error {
            case .busy, .polling: self = .conflict(.deviceBusy, error.description)
            case .lineSettings: self = .conflict(.lineSettings, error.description)
            case .identityUnread: self = APIError(status: 502, code: .identityReadFailed, message: error.description)
            case .vanished: self = .notFound(.notFound, error.description)
            }
        default: self = APIError(status: 500, code: .internal, message: "\(error)")
        }
    }

    /// The answer to an archive error (`message`: the whole error's text, for a failure wrapped in another).
    private init(archive error: ArchiveError, message: String) {
        switch error {
        case .invalidName: self = .badRequest(.invalidName, message)
        case .notFound(_, nil): self = .notFound(.noTemplate, message)
        case .notFound: self = .notFound(.unknownVersion, message)
        case .corrupt: self = .conflict(.templateCorrupt, message)
        case .conflict: self = .conflict(.versionConflict, message)
        case .invalidImport, .notAdmissible: self = .unprocessable(.invalidTemplate, message)
        case .wrongPage: self = .unprocessable(.pageMismatch, message)
        case .storage: self = APIError(status: 500, code: .storage, message: message)
        // The failure's own answer (a failed store stays 500 `storage`), with the missing record named.
        case .failureUnaudited(let failure, _): self = Self(archive: failure, message: message)
        }
    }

    /// The archive failure whose audit record is missing, in whichever error carries it: the operator must hear
    /// of it (the daemon's log), not only the caller.
    static func unauditedFailure(in error: any Error) -> ArchiveError? {
        let archive: ArchiveError? =
            switch error {
            case let e as ArchiveError: e
            case HistoryError.archive(let e): e
            case IOSImportError.archive(let e): e
            default: nil
            }
        if case .failureUnaudited? = archive { return archive }
        return nil
    }
}
