import XCTest

@testable import LastsetCore

/// The route matcher and the access each route declares, table-driven on a table of the same shapes as the
/// daemon's (its real table is checked against docs/API.md in `APIRouteTableTests`).
final class RouteTableTests: XCTestCase {
    private let table = RouteTable<String>([
        .init(.get, "/v1/health", .viewer, "health"),
        .init(.get, "/v1/pages/{page}", .viewer, "page"),
        .init(.get, "/v1/pages/{page}/templates", .viewer, "templates"),
        .init(.post, "/v1/pages/{page}/templates", .operator, maxBodyBytes: 8 << 20, "import"),
        .init(.get, "/v1/pages/{page}/templates/{version}", .viewer, "template"),
        .init(.post, "/v1/pages/{page}/apply", .operatorUnlessDryRun, "apply"),
        .init(.delete, "/v1/pages/{page}/templates/{version}", .operator, "delete"),
        .init(.get, "/v1/session", .session, "who"),
        .init(.post, "/v1/session", .session, "sign in"),
    ])

    private enum Expected: Equatable {
        case found(String, [String: String])
        case methodNotAllowed([String])
        case notFound
    }

    private func outcome(_ method: String, _ path: String) -> Expected {
        switch table.match(method: method, path: RoutePath.segments(path)) {
        case .found(let route, let parameters): return .found(route.handler, parameters.values)
        case .methodNotAllowed(let routes):
            XCTAssertFalse(routes.isEmpty)
            return .methodNotAllowed(table.match(method: method, path: RoutePath.segments(path)).allowedMethods)
        case .notFound: return .notFound
        }
    }

    func testMatching() {
        let cases: [(String, String, Expected)] = [
            ("GET", "/v1/health", .found("health", [:])),
            ("GET", "/v1//health/", .found("health", [:])),
            ("GET", "/v1/pages/heating", .found("page", ["page": "heating"])),
            ("GET", "/v1/pages/heating/templates/line-7-3", .found("template", ["page": "heating", "version": "line-7-3"])),
            ("POST", "/v1/pages/heating/templates", .found("import", ["page": "heating"])),
            ("DELETE", "/v1/pages/heating/templates/3", .found("delete", ["page": "heating", "version": "3"])),
            // A known path with another method: every method of the path, in table order.
            ("PUT", "/v1/pages/heating/templates", .methodNotAllowed(["GET", "POST"])),
            ("POST", "/v1/pages/heating/templates/3", .methodNotAllowed(["GET", "DELETE"])),
            ("HEAD", "/v1/health", .methodNotAllowed(["GET"])),
            ("get", "/v1/health", .methodNotAllowed(["GET"])),
            ("DELETE", "/v1/session", .methodNotAllowed(["GET", "POST"])),
            // Unknown paths: a literal segment must match exactly, a parameter is one whole segment.
            ("GET", "/v1/pages", .notFound),
            ("GET", "/v1/pages/a/b", .notFound),
            ("GET", "/v1/pages/heating/templates/3/file", .notFound),
            ("GET", "/v2/health", .notFound),
            ("GET", "/health", .notFound),
            ("GET", "/", .notFound),
            ("GET", "/v1/HEALTH", .notFound),
        ]
        for (method, path, expected) in cases {
            XCTAssertEqual(outcome(method, path), expected, "\(method) \(path)")
        }
    }

    func testPatternsReadAndWriteAsDocumented() {
        for text in ["/v1/health", "/v1/pages/{page}/templates/{version}/file", "/v1/devices/{id}/apply"] {
            XCTAssertEqual(RoutePattern(text).description, text)
        }
        XCTAssertEqual(
            RoutePattern("/v1/pages/{page}").segments, [.literal("v1"), .literal("pages"), .parameter("page")])
        // "{}" names nothing: it is a literal segment.
        XCTAssertEqual(RoutePattern("/v1/{}").segments, [.literal("v1"), .literal("{}")])
        XCTAssertNil(RoutePattern("/v1/pages/{page}").match(["v1", "pages"]))
        XCTAssertEqual(RoutePattern("/v1/pages/{page}").match(["v1", "pages", "x"])?["page"], "x")
        XCTAssertNil(RoutePattern("/v1/pages/{page}").match(["v1", "pages", "x"])?["version"])
    }

    func testRequiredRoles() {
        let cases: [(String, String, Bool, APIRole?)] = [
            ("GET", "/v1/health", false, .viewer),
            ("GET", "/v1/pages/heating/templates", false, .viewer),
            ("POST", "/v1/pages/heating/templates", false, .operator),
            ("POST", "/v1/pages/heating/templates", true, .operator),
            ("POST", "/v1/pages/heating/apply", false, .operator),
            ("POST", "/v1/pages/heating/apply", true, .viewer),
            ("DELETE", "/v1/pages/heating/templates/3", false, .operator),
            ("GET", "/v1/session", false, nil),
            ("POST", "/v1/session", false, nil),
            // 405 on the session path: for anyone, as the session endpoints need no role.
            ("DELETE", "/v1/session", false, nil),
            // No route: reading needs a viewer, anything else an operator (closed by default).
            ("GET", "/v1/nothing", false, .viewer),
            ("HEAD", "/v1/health", false, .viewer),
            ("PUT", "/v1/pages/heating", false, .operator),
            ("POST", "/v1/import", true, .operator),
            ("DELETE", "/v1/pages/heating/templates", false, .operator),
            ("POST", "/v2/pages/heating/apply", true, .operator),
        ]
        for (method, path, dryRun, expected) in cases {
            let match = table.match(method: method, path: RoutePath.segments(path))
            XCTAssertEqual(match.requiredRole(method: method, dryRun: dryRun), expected, "\(method) \(path) dryRun \(dryRun)")
        }
        XCTAssertLessThan(APIRole.viewer, APIRole.operator)
    }

    func testUploadLimitIsTheRoutes() {
        guard case .found(let route, _) = table.match(method: "POST", path: ["v1", "pages", "p", "templates"]) else {
            return XCTFail("the import route does not match")
        }
        XCTAssertEqual(route.maxBodyBytes, 8 << 20)
        guard case .found(let other, _) = table.match(method: "GET", path: ["v1", "pages", "p", "templates"]) else {
            return XCTFail("the listing route does not match")
        }
        XCTAssertNil(other.maxBodyBytes)
    }

    /// Only a body the strict parser reads as an object with `dryRun` exactly `true` is a dry run: a viewer gets
    /// through the role check only with such a body, and it decodes as a dry run.
    func testDryRunIsReadStrictly() throws {
        let cases: [(String, Bool)] = [
            (#"{"device":"b","dryRun":true}"#, true),
            (#"{"dryRun":true}"#, true),
            (#"{"device":"b","dryRun":false}"#, false),
            (#"{"device":"b"}"#, false),
            (#"{"device":"b","dryRun":"true"}"#, false),
            (#"{"device":"b","dryRun":1}"#, false),
            (#"{"device":"b","dryRun":false,"dryRun":true}"#, false),
            (#"{"device":"b","dryRun":true,"dryRun":true}"#, false),
            (#"{"device":"b","dryrun":true}"#, false),
            (#"[{"dryRun":true}]"#, false),
            (#"{"device":"b","dryRun":true,}"#, false),
            ("", false),
        ]
        for (body, dryRun) in cases {
            let parsed = RequestBody.Parsed(Array(body.utf8))
            XCTAssertEqual(parsed.isDryRun, dryRun, body)
            if let request = try? RequestBody.decode(ApplyRequest.self, from: parsed, shape: ApplyRequest.bodyShape) {
                XCTAssertEqual(request.dryRun == true, dryRun, "the decoded body and the access check disagree: \(body)")
            }
        }
    }
}
