import Foundation
import LastsetCore
import LastsetHTTP
import LastsetSystem

/// Turns the config's `api` section into the TCP listener's settings (fixed at start) and the access rules
/// (tokens, roles: rebuilt on every reload, so a SIGHUP revokes a token without a restart).
enum AccessRules {
    /// The TCP listener and its TLS material; nil when `api.tcp` is absent. Refuses a listener off loopback
    /// without TLS, and TLS files that cannot be read.
    static func listener(_ tcp: TCPAPIConfig?) throws -> (
        HTTPServerConfiguration.TCPListener, HTTPServerConfiguration.TLSMaterial?
    )? {
        guard let tcp else { return nil }
        let (host, port) = try hostAndPort(tcp.listen)
        var material: HTTPServerConfiguration.TLSMaterial?
        if let tls = tcp.tls {
            guard HTTPServer.supportsTLS else {
                throw DaemonError("api.tcp.tls is set but this libmicrohttpd was built without TLS (GnuTLS) support")
            }
            material = .init(certificatePEM: try read(tls.cert, "api.tcp.tls.cert"), keyPEM: try read(tls.key, "api.tcp.tls.key"))
        } else if !TCPAPIConfig.isLoopback(host: host) {
            throw DaemonError(
                "refusing to listen on \(tcp.listen) without TLS: api.tcp.listen is not a loopback address, so tokens and "
                    + "session cookies would cross the network in clear; set api.tcp.tls { cert, key } or listen on 127.0.0.1")
        }
        return (.init(host: host, port: port), material)
    }

    /// The access rules for `api`: the TCP tokens (named ones by hash, the tokenFile's as operator `api`), the
    /// Host/Origin allow-lists and the Unix roles, sharing `sessions` with the rules they replace.
    static func auth(_ api: APIConfig?, sessions: SessionStore) throws -> HTTPAuth {
        guard let tcp = api?.tcp else { return HTTPAuth(tokens: [], allowedHosts: [], unixRoles: api?.roles, sessions: sessions) }
        let (host, port) = try hostAndPort(tcp.listen)
        var tokens: [HTTPAuth.Token] = []
        for (i, entry) in (tcp.tokens ?? []).enumerated() {
            guard let token = HTTPAuth.Token(name: entry.name, role: entry.role, sha256Hex: entry.sha256) else {
                throw DaemonError("api.tcp.tokens[\(i)].sha256 \"\(entry.sha256)\" is not 64 hex digits")
            }
            tokens.append(token)
        }
        if let file = tcp.tokenFile {
            let secret = try TokenFile.read(file)
            tokens.append(HTTPAuth.Token(name: "api", role: .operator, secret: secret))
        }
        guard !tokens.isEmpty else {
            throw DaemonError("api.tcp needs a tokenFile or tokens: the TCP API is never open without a token")
        }
        let bracketed = host.contains(":") ? "[\(host)]" : host
        var hosts = HTTPAuth.loopbackHosts(port: port).union(["\(bracketed):\(port)".lowercased()])
        hosts.formUnion((tcp.hosts ?? []).map { $0.lowercased() })
        return HTTPAuth(tokens: tokens, allowedHosts: hosts, secure: tcp.tls != nil, unixRoles: api?.roles, sessions: sessions)
    }

    private static func hostAndPort(_ listen: String) throws -> (String, UInt16) {
        guard let parts = try? HostPort(parsing: listen), let port = UInt16(parts.port) else {
            throw DaemonError("api.tcp.listen \"\(listen)\" is not host:port")
        }
        return (parts.host, port)
    }

    private static func read(_ path: String, _ key: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw DaemonError("cannot read \(key) \(path): \(error.localizedDescription)")
        }
    }
}
