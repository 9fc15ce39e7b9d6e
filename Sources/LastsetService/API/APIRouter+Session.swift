import LastsetCore
import LastsetHTTP

/// `/v1/session`: the console's sign-in (docs/API.md, "Browser sessions and CSRF"). These routes need no role;
/// each checks the caller itself.
extension APIRouter {
    /// `GET`: who the caller is (200 `signedIn: false` when nobody).
    func showSession(_ call: APICall) -> HTTPResponse {
        let auth = call.auth
        switch auth.authorize(call.request) {
        case .allowed(let p):
            let session = p.sessionId.flatMap { auth.sessions.lookup($0) }
            return .api(
                200,
                SessionInfo(
                    signedIn: true, principal: p.name, role: p.role, csrfToken: session?.csrfToken, expiresAt: session?.expiresAt)
            )
        case .denied(let response) where response.status == 401:
            return .api(200, SessionInfo(signedIn: false))
        case .denied(let response):
            return response
        }
    }

    /// `POST`: signs in with a token and sets the session cookie.
    func signIn(_ call: APICall) throws -> HTTPResponse {
        let body = try call.decode(SignInRequest.self)
        switch call.auth.signIn(call.request, secret: body.token) {
        case .failure(let refusal):
            throw refusal
        case .success(let (session, cookie)):
            var response = HTTPResponse.api(
                201,
                SessionInfo(
                    signedIn: true, principal: "token:\(session.tokenName)", role: session.role, csrfToken: session.csrfToken,
                    expiresAt: session.expiresAt))
            response.headers["Set-Cookie"] = cookie
            response.headers["Cache-Control"] = "no-store"
            return response
        }
    }

    /// `DELETE`: signs out (ends the session on the server); 400 `no_session` for a caller without one.
    func signOut(_ call: APICall) throws -> HTTPResponse {
        let auth = call.auth
        switch auth.authorize(call.request) {
        case .denied(let response):
            throw HTTPError(response)
        case .allowed(let p):
            guard let id = p.sessionId else {
                throw APIError.badRequest(.noSession, "\(p.name) is not signed in with a session; nothing to end")
            }
            auth.sessions.end(id)
            var response = HTTPResponse.api(200, SessionInfo(signedIn: false))
            response.headers["Set-Cookie"] = auth.sessionCookie("", maxAge: 0)
            return response
        }
    }
}
