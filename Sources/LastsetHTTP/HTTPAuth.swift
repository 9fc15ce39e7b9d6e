/// Access checks for the API: Unix-socket peers pass (the socket's mode is their check); TCP clients need an
/// allowed Host, an allowed (or absent) Origin, and a valid bearer token.
///
/// Host and Origin checks stop DNS-rebinding and cross-site requests from a browser on the same host.
public struct HTTPAuth: Sendable {
    /// A named API token; the id (never the secret) identifies the caller in audit records.
    public struct Token: Sendable {
        /// A name for the token, e.g. "ci".
        public let id: String
        fileprivate let secret: [UInt8]
        /// Creates a token from its id and secret.
        public init(id: String, secret: String) {
            self.id = id
            self.secret = Array(secret.utf8)
        }
    }

    /// The outcome of `authorize(_:)`.
    public enum Decision: Sendable, Equatable {
        /// Allowed; `principal` is "uid:<n>" for a Unix peer or "token:<id>" for a TCP client.
        case allowed(principal: String)
        /// Refused; send this response (401 or 403 with a JSON error) as is.
        case denied(HTTPResponse)
    }

    /// The accepted tokens.
    public let tokens: [Token]
    /// Accepted Host header values, lower-cased, e.g. "127.0.0.1:8502".
    public let allowedHosts: Set<String>
    /// Accepted Origin header values, lower-cased; a request without Origin is always accepted.
    public let allowedOrigins: Set<String>

    /// Creates the checker; hosts and origins are compared case-insensitively.
    public init(tokens: [Token], allowedHosts: Set<String>, allowedOrigins: Set<String> = []) {
        self.tokens = tokens
        self.allowedHosts = Set(allowedHosts.map { $0.lowercased() })
        self.allowedOrigins = Set(allowedOrigins.map { $0.lowercased() })
    }

    /// The Host values a loopback listener on `port` is reached by: 127.0.0.1, localhost and [::1].
    public static func loopbackHosts(port: UInt16) -> Set<String> {
        ["127.0.0.1:\(port)", "localhost:\(port)", "[::1]:\(port)"]
    }

    /// Decides whether `request` may proceed.
    public func authorize(_ request: HTTPRequest) -> Decision {
        if case .unix(let uid, _, _) = request.peer { return .allowed(principal: "uid:\(uid)") }

        let host = request.headers["Host"] ?? ""
        guard allowedHosts.contains(host.lowercased()) else {
            return .denied(.error(403, code: "forbidden_host", message: "Host \"\(host)\" is not accepted on this listener"))
        }
        if let origin = request.headers["Origin"], !allowedOrigins.contains(origin.lowercased()) {
            return .denied(.error(403, code: "forbidden_origin", message: "Origin \"\(origin)\" is not accepted"))
        }
        guard let presented = Self.bearerToken(request.headers["Authorization"]) else {
            var response = HTTPResponse.error(401, code: "unauthorized", message: "a bearer token is required")
            response.headers["WWW-Authenticate"] = "Bearer"
            return .denied(response)
        }
        // Check every token, without an early exit, so timing does not reveal which one nearly matched.
        var match: Token?
        for token in tokens where Self.constantTimeEquals(token.secret, presented) && match == nil {
            match = token
        }
        guard let match else {
            var response = HTTPResponse.error(401, code: "unauthorized", message: "the bearer token is not valid")
            response.headers["WWW-Authenticate"] = "Bearer error=\"invalid_token\""
            return .denied(response)
        }
        return .allowed(principal: "token:\(match.id)")
    }

    /// Compares two byte strings in time that depends only on their lengths, not on where they differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
        let count = max(a.count, b.count)
        for index in 0..<count {
            let left = index < a.count ? a[index] : 0
            let right = index < b.count ? b[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    private static func bearerToken(_ header: String?) -> [UInt8]? {
        guard let header else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        let token = parts[1].trimmingCharacters(in: [" ", "\t"])
        return token.isEmpty ? nil : Array(token.utf8)
    }
}

extension Substring {
    fileprivate func trimmingCharacters(in set: Set<Character>) -> Substring {
        var result = self
        while let first = result.first, set.contains(first) { result = result.dropFirst() }
        while let last = result.last, set.contains(last) { result = result.dropLast() }
        return result
    }
}
