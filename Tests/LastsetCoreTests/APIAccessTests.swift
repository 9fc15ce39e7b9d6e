import Foundation
import XCTest

@testable import LastsetCore

/// The roles table, the access part of the config and the audit filter, table-driven.
final class APIAccessTests: XCTestCase {
    func testRequiredRoles() {
        let cases: [(String, String, Bool, APIRole?)] = [
            ("GET", "/health", false, .viewer),
            ("GET", "/devices", false, .viewer),
            ("GET", "/pages/heating/templates/3/file", false, .viewer),
            ("GET", "/pages/heating/diff", false, .viewer),
            ("GET", "/audit", false, .viewer),
            ("HEAD", "/jobs", false, .viewer),
            ("POST", "/pages/heating/apply", true, .viewer),
            ("POST", "/pages/heating/apply", false, .operator),
            ("POST", "/pages/heating/capture", true, .operator),
            ("POST", "/devices/press-b/apply", true, .viewer),
            ("POST", "/devices/press-b/apply", false, .operator),
            ("POST", "/pages/heating/promote", true, .operator),
            ("DELETE", "/pages/heating/templates/3", false, .operator),
            ("GET", "/pages/heating/templates/3/diff", false, .viewer),
            ("POST", "/pages/heating/templates", false, .operator),
            ("POST", "/import", false, .operator),
            ("DELETE", "/jobs/1", false, .operator),
            ("PUT", "/pages/heating", false, .operator),
            ("POST", "/session", false, nil),
            ("DELETE", "/session", false, nil),
            ("GET", "/session", false, nil),
        ]
        for (method, path, dryRun, expected) in cases {
            let route = path.split(separator: "/").map(String.init)
            XCTAssertEqual(
                APIAccess.requiredRole(method: method, route: route, dryRun: dryRun), expected, "\(method) \(path) \(dryRun)")
        }
        XCTAssertLessThan(APIRole.viewer, APIRole.operator)
    }

    func testLoopbackAddresses() {
        for (host, expected) in [
            ("127.0.0.1", true), ("127.3.2.1", true), ("localhost", true), ("::1", true), ("[::1]", true),
            ("0.0.0.0", false), ("192.168.1.5", false), ("::", false), ("127.0.0.256", false), ("127.0.0", false),
            ("lastset.example", false),
        ] {
            XCTAssertEqual(TCPAPIConfig.isLoopback(host: host), expected, host)
        }
    }

    func testAccessConfigIsAccepted() throws {
        let hash = String(repeating: "aB", count: 32)
        let text = """
            { version: 1, devices: [], pages: [],
              api: { roles: { operatorGroups: ["lastset-ops"], viewerGroups: ["lastset-view", "staff"] },
                     tcp: { listen: "192.168.1.5:8502", hosts: ["lastset.plant.example:8502"],
                            tls: { cert: "/etc/lastset/tls/cert.pem", key: "/etc/lastset/tls/key.pem" },
                            tokens: [ { name: "alice", role: "operator", sha256: "\(hash)" },
                                      { name: "tablet-3", role: "viewer", sha256: "\(hash)" } ] } } }
            """
        let config = try ConfigLoader.check(Data(text.utf8), file: "f")
        XCTAssertEqual(
            config.api?.roles, APIRolesConfig(operatorGroups: ["lastset-ops"], viewerGroups: ["lastset-view", "staff"]))
        XCTAssertEqual(
            config.api?.tcp,
            TCPAPIConfig(
                listen: "192.168.1.5:8502",
                tokens: [
                    APITokenConfig(name: "alice", role: .operator, sha256: hash.lowercased()),
                    APITokenConfig(name: "tablet-3", role: .viewer, sha256: hash.lowercased()),
                ],
                tls: TLSConfig(cert: "/etc/lastset/tls/cert.pem", key: "/etc/lastset/tls/key.pem"),
                hosts: ["lastset.plant.example:8502"]))
    }

    func testAuditFilter() {
        let t0 = Date(timeIntervalSince1970: 1_800_000_000)
        func record(_ page: String, _ device: String, _ who: String, _ at: TimeInterval) -> AuditRecord {
            AuditRecord(
                time: t0.addingTimeInterval(at), kind: .replay, who: who, pageId: page, device: device, endpoint: "tcp://h:1",
                unit: 1, identity: [], templateVersion: 1, pageHash: "sha256:0", result: .succeeded, message: nil, registers: [])
        }
        let records = [
            record("heating", "press-a", "token:olga", 0), record("heating", "press-b", "uid:0(root)", 60),
            record("motion", "press-b", "token:vic", 120),
        ]
        let cases: [(AuditFilter, [Int])] = [
            (AuditFilter(), [0, 1, 2]),
            (AuditFilter(page: "heating"), [0, 1]),
            (AuditFilter(device: "press-b"), [1, 2]),
            (AuditFilter(who: "token:"), [0, 2]),
            (AuditFilter(who: "token:vic"), [2]),
            (AuditFilter(who: "token:v"), []),
            (AuditFilter(since: t0.addingTimeInterval(60)), [1, 2]),
            (AuditFilter(until: t0.addingTimeInterval(60)), [0]),
            (AuditFilter(page: "heating", device: "press-b", since: t0, until: t0.addingTimeInterval(61)), [1]),
        ]
        for (filter, expected) in cases {
            XCTAssertEqual(records.indices.filter { filter.matches(records[$0]) }, expected, "\(filter)")
        }
    }
}
