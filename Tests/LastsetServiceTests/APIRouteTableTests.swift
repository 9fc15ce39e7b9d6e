import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP
import TestSupport
import XCTest

@testable import LastsetService

/// The daemon's one route table against docs/API.md (its route index and endpoint sections), the roles it
/// declares, and the router dispatching from it in the process: role refusals, 405 with `Allow`, 404.
final class APIRouteTableTests: XCTestCase {
    private static let apiDoc = TestPaths.repoRoot.appendingPathComponent("docs/API.md")

    /// One row of the route index as docs/API.md writes it.
    private struct IndexRow: Equatable, CustomStringConvertible {
        var method: String
        var path: String
        var role: String
        var anchor: String
        var description: String { "| \(method) | [`\(path)`](#\(anchor)) | \(role) |" }
    }

    /// GitHub's anchor of a heading `METHOD PATH`: lower case, letters, digits, spaces as hyphens.
    private static func anchor(_ heading: String) -> String {
        String(
            heading.lowercased().compactMap { c -> Character? in c == " " ? "-" : (c.isLetter || c.isNumber || c == "-" ? c : nil)
            })
    }

    private static var tableRows: [IndexRow] {
        APIRouter.table.routes.map { route in
            let method = route.method.rawValue
            let path = route.pattern.description
            return IndexRow(method: method, path: path, role: route.access.documented, anchor: anchor("\(method) \(path)"))
        }
    }

    func testTheRouteIndexInAPIDocIsTheTable() throws {
        let text = try String(contentsOf: Self.apiDoc, encoding: .utf8)
        let header = try XCTUnwrap(text.range(of: "| Method | Path | Role | What it does |\n"), "docs/API.md has no route index")
        let lines = text[header.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("|") }.dropFirst()
        var documented: [IndexRow] = []
        for line in lines {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertEqual(cells.count, 4, "route index row: \(line)")
            guard cells.count == 4, let open = cells[1].range(of: "](#"), cells[1].hasPrefix("[`"), cells[1].hasSuffix(")") else {
                XCTFail("route index row without a [`path`](#anchor) link: \(line)")
                continue
            }
            let path = cells[1][cells[1].index(cells[1].startIndex, offsetBy: 2)..<open.lowerBound].dropLast()
            let anchor = cells[1][open.upperBound...].dropLast()
            documented.append(IndexRow(method: cells[0], path: String(path), role: cells[2], anchor: String(anchor)))
        }
        XCTAssertEqual(
            documented, Self.tableRows,
            "docs/API.md's route index must list APIRouter.table, in its order; expected:\n"
                + Self.tableRows.map(\.description).joined(separator: "\n"))
    }

    func testEveryEndpointSectionIsARouteAndEveryRouteHasOne() throws {
        let text = try String(contentsOf: Self.apiDoc, encoding: .utf8)
        let headings = text.split(separator: "\n").filter { $0.hasPrefix("### ") }.map { $0.dropFirst(4) }
            .filter { heading in APIMethod.allCases.contains { heading.hasPrefix("\($0.rawValue) /v1/") } }
        XCTAssertEqual(
            Set(headings.map(String.init)), Set(Self.tableRows.map { "\($0.method) \($0.path)" }),
            "the `### METHOD /v1/…` sections of docs/API.md and the routes of APIRouter.table differ")
        XCTAssertEqual(headings.count, Set(headings).count, "an endpoint documented twice")
    }

    /// The role each request needs (docs/API.md, "Roles"); requests no route answers are closed by default.
    func testRolesOfTheDaemonsRoutes() {
        let cases: [(String, String, Bool, APIRole?)] = [
            ("GET", "/v1/health", false, .viewer),
            ("GET", "/v1/devices", false, .viewer),
            ("GET", "/v1/pages/heating/templates/3/file", false, .viewer),
            ("GET", "/v1/pages/heating/diff", false, .viewer),
            ("GET", "/v1/audit", false, .viewer),
            ("GET", "/v1/metrics", false, .viewer),
            ("HEAD", "/v1/jobs", false, .viewer),
            ("POST", "/v1/pages/heating/apply", true, .viewer),
            ("POST", "/v1/pages/heating/apply", false, .operator),
            ("POST", "/v1/pages/heating/capture", true, .operator),
            ("POST", "/v1/devices/press-b/apply", true, .viewer),
            ("POST", "/v1/devices/press-b/apply", false, .operator),
            ("POST", "/v1/pages/heating/promote", true, .operator),
            ("POST", "/v1/pages/heating/templates/3/promote", true, .operator),
            ("DELETE", "/v1/pages/heating/templates/3", false, .operator),
            ("GET", "/v1/pages/heating/templates/3/diff", false, .viewer),
            ("POST", "/v1/pages/heating/templates", false, .operator),
            ("POST", "/v1/import", false, .operator),
            ("POST", "/v1/reload", false, .operator),
            ("POST", "/v1/sync", false, .operator),
            ("GET", "/v1/fleet/doctor", false, .viewer),
            ("POST", "/v1/fleet/doctor", false, .operator),
            ("POST", "/v1/fleet/repair/quarantine", false, .administrator),
            ("POST", "/v1/fleet/repair/reclone", false, .administrator),
            ("GET", "/v1/fleet/pages/heating", false, .viewer),
            ("POST", "/v1/fleet/pages/heating/take", false, .operator),
            ("POST", "/v1/fleet/pages/heating/release", false, .operator),
            ("POST", "/v1/backup", false, .operator),
            ("POST", "/v1/scan", false, .operator),
            ("GET", "/v1/identify", false, .viewer),
            ("DELETE", "/v1/jobs/1", false, .operator),
            ("PUT", "/v1/pages/heating", false, .operator),
            ("POST", "/v1/session", false, nil),
            ("DELETE", "/v1/session", false, nil),
            ("GET", "/v1/session", false, nil),
            ("PUT", "/v1/session", false, nil),
        ]
        for (method, path, dryRun, expected) in cases {
            let match = APIRouter.table.match(method: method, path: RoutePath.segments(path))
            XCTAssertEqual(match.requiredRole(method: method, dryRun: dryRun), expected, "\(method) \(path) dryRun \(dryRun)")
        }
    }

    func testOnlyATemplateImportTakesALargeBody() {
        XCTAssertEqual(APIRouter.uploadLimit(method: "POST", path: "/v1/pages/heating/templates"), 8 << 20)
        XCTAssertEqual(APIRouter.uploadLimit(method: "POST", path: "/v1/pages/heating/templates/"), 8 << 20)
        XCTAssertNil(APIRouter.uploadLimit(method: "GET", path: "/v1/pages/heating/templates"))
        XCTAssertNil(APIRouter.uploadLimit(method: "POST", path: "/v1/pages/heating/apply"))
        XCTAssertNil(APIRouter.uploadLimit(method: "POST", path: "/v1/pages/heating/templates/3/promote"))
    }

    // MARK: dispatch in the process

    private static let viewerSecret = "viewer-secret"
    private static let operatorSecret = "operator-secret"

    private func router() throws -> APIRouter {
        let data = try TestPaths.temporaryDirectory(prefix: "lastset-routes")
        addTeardownBlock { try? FileManager.default.removeItem(at: data) }
        let config = try CompiledConfig(
            LastsetConfig(
                devices: [DeviceConfig(id: "press-a", endpoint: "tcp://127.0.0.1:1", unit: 1, pages: ["p"])],
                pages: [PageDefinition(id: "p", registers: [RegisterDefinition(registerId: "r", address: 0, type: .u16)])]))
        let auth = HTTPAuth(
            tokens: [
                HTTPAuth.Token(name: "vic", role: .viewer, secret: Self.viewerSecret),
                HTTPAuth.Token(name: "olga", role: .operator, secret: Self.operatorSecret),
            ], allowedHosts: ["127.0.0.1:8502"])
        let engine = try Engine(dataDirectory: data)
        addTeardownBlock { engine.close() }
        return APIRouter(registry: DeviceRegistry(config: config), jobs: JobTable(), engine: engine, auth: auth) {
            HealthInfo(
                status: .ok, version: "test", startedAt: Date(), configFile: "", dataDirectory: "", devices: 1, pages: 1,
                runningJobs: 0)
        }
    }

    private func send(
        _ router: APIRouter, _ method: String, _ path: String, secret: String? = operatorSecret, body: String = ""
    ) async -> (status: Int, code: String?, allow: String?) {
        var headers: HTTPHeaders = ["Host": "127.0.0.1:8502"]
        if let secret { headers["Authorization"] = "Bearer \(secret)" }
        let parts = path.split(separator: "?", maxSplits: 1).map(String.init)
        var query: [String: String] = [:]
        for pair in (parts.count > 1 ? parts[1] : "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            query[kv[0]] = kv.count > 1 ? kv[1] : ""
        }
        let request = HTTPRequest(
            method: method, path: parts[0], query: query, headers: headers, body: Array(body.utf8),
            peer: .tcp(address: "127.0.0.1"))
        let response = await router.handle(request)
        let error = try? JSONDecoder().decode([String: [String: String]].self, from: Data(response.body))
        return (response.status, error?["error"]?["code"], response.headers["Allow"])
    }

    /// Every route refuses a viewer exactly when its declared access does; a known path with another method is 405
    /// with the path's methods, in table order, as `Allow`.
    func testTheRouterDispatchesFromTheTable() async throws {
        let router = try router()
        let sample = ["page": "p", "version": "1", "id": "press-a"]
        var paths: [String: [String]] = [:]
        for route in APIRouter.table.routes {
            let path =
                "/"
                + route.pattern.segments.map { segment -> String in
                    switch segment {
                    case .literal(let text): return text
                    case .parameter(let name): return sample[name] ?? name
                    }
                }.joined(separator: "/")
            paths[path, default: []].append(route.method.rawValue)
            guard route.access != .session else { continue }
            let viewer = await send(router, route.method.rawValue, path, secret: Self.viewerSecret)
            if let role = route.access.requiredRole(dryRun: false), role > .viewer {
                XCTAssertEqual(viewer.status, 403, "\(route.method) \(path)")
                XCTAssertEqual(viewer.code, "forbidden_role", "\(route.method) \(path)")
            } else {
                XCTAssertNotEqual(viewer.code, "forbidden_role", "\(route.method) \(path)")
            }
            let nobody = await send(router, route.method.rawValue, path, secret: nil)
            XCTAssertEqual(nobody.status, 401, "\(route.method) \(path) without a token")
        }
        for (path, methods) in paths {
            let refused = await send(router, "PUT", path)
            XCTAssertEqual(refused.status, 405, path)
            XCTAssertEqual(refused.code, "method_not_allowed", path)
            XCTAssertEqual(refused.allow, methods.joined(separator: ", "), path)
        }
    }

    func testRequestsNoRouteAnswers() async throws {
        let router = try router()
        let cases: [(String, String, String?, Int, String)] = [
            ("GET", "/v1/nothing", Self.viewerSecret, 404, "not_found"),
            ("GET", "/v2/pages", Self.viewerSecret, 404, "not_found"),
            ("HEAD", "/v1/jobs", Self.viewerSecret, 405, "method_not_allowed"),
            // Closed by default: a viewer's unknown write is refused before it learns the path is unknown.
            ("POST", "/v1/nothing", Self.viewerSecret, 403, "forbidden_role"),
            ("PUT", "/v1/pages/p", Self.viewerSecret, 403, "forbidden_role"),
            ("PUT", "/v1/pages/p", Self.operatorSecret, 405, "method_not_allowed"),
            ("GET", "/v1/nothing", nil, 401, "unauthorized"),
            // The session path answers a wrong method to anyone.
            ("PUT", "/v1/session", nil, 405, "method_not_allowed"),
            // A viewer's dry run passes the role check (then the unknown device is the answer).
            ("POST", "/v1/pages/p/apply", Self.viewerSecret, 403, "forbidden_role"),
        ]
        for (method, path, secret, status, code) in cases {
            let answer = await send(router, method, path, secret: secret)
            XCTAssertEqual(answer.status, status, "\(method) \(path)")
            XCTAssertEqual(answer.code, code, "\(method) \(path)")
        }
        let dry = await send(
            router, "POST", "/v1/pages/p/apply", secret: Self.viewerSecret, body: #"{"device":"nope","dryRun":true}"#)
        XCTAssertEqual(dry.code, "unknown_device")
        let doubled = await send(
            router, "POST", "/v1/pages/p/apply", secret: Self.viewerSecret,
            body: #"{"device":"nope","dryRun":false,"dryRun":true}"#)
        XCTAssertEqual(doubled.code, "forbidden_role", "a repeated dryRun is no dry run")
        // A whole-machine dry run too (the page has no template: the job ends at once, nothing sent).
        let allAtOnce = await send(
            router, "POST", "/v1/devices/press-a/apply?wait=1", secret: Self.viewerSecret, body: #"{"dryRun":true}"#)
        XCTAssertEqual(allAtOnce.status, 200)
        let session = await send(router, "PUT", "/v1/session", secret: nil)
        XCTAssertEqual(session.allow, "GET, POST, DELETE")
        let signedOut = await send(router, "GET", "/v1/session", secret: nil)
        XCTAssertEqual(signedOut.status, 200)
    }
}
