import Foundation
import XCTest

@testable import LastsetCore

/// The access part of the config and the audit filter, table-driven (the roles of the routes: `RouteTableTests`,
/// and for the daemon's own table `APIRouteTableTests`).
final class APIAccessTests: XCTestCase {
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
