import Foundation
import LastsetHTTP

/// Serves the technicians' console (the files of `Console/`, embedded by scripts/embed-console.py) outside `/v1`.
enum ConsoleFiles {
    /// Decoded once, on first use.
    private static let decoded: [String: (file: ConsoleAssets.File, bytes: [UInt8])] = ConsoleAssets.files.compactMapValues {
        file in Data(base64Encoded: file.base64).map { (file, [UInt8]($0)) }
    }

    /// The bytes embedded for `path` (e.g. "/index.html"), for tests.
    static func bytes(_ path: String) -> [UInt8]? { decoded[path]?.bytes }

    /// Every embedded path.
    static var paths: [String] { decoded.keys.sorted() }

    /// The page, a script or a style sheet for a GET or HEAD of its path ("/" is index.html); nil for anything else.
    static func response(for request: HTTPRequest) -> HTTPResponse? {
        guard request.method == "GET" || request.method == "HEAD" else { return nil }
        let path = request.path == "/" ? "/index.html" : request.path
        guard let (file, bytes) = decoded[path] else { return nil }
        let etag = "\"\(file.sha256.prefix(32))\""
        var headers: HTTPHeaders = [
            "Content-Type": file.contentType,
            "Cache-Control": "no-cache",
            "ETag": etag,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
            "Referrer-Policy": "no-referrer",
            // Only the daemon's own files and API: no inline script, no other origin, no framing.
            "Content-Security-Policy":
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ]
        if request.headers["If-None-Match"] == etag {
            headers["Content-Type"] = nil
            return HTTPResponse(status: 304, headers: headers)
        }
        return HTTPResponse(status: 200, headers: headers, body: request.method == "HEAD" ? [] : bytes)
    }
}
