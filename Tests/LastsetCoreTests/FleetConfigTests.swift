import Foundation
import LastsetCore
import XCTest

/// The optional `fleet` section: accepted as documented, every mistake named with its path.
final class FleetConfigTests: XCTestCase {
    private func config(_ fleet: String) -> String {
        """
        { version: 1, \(fleet)
          devices: [ { id: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, pages: ["heating"] } ],
          pages: [ { id: "heating", registers: [ { registerId: "m", address: 100, type: "u16" } ] } ] }
        """
    }

    func testWithoutAFleetNothingChangesAndAFullSectionIsKept() throws {
        XCTAssertNil(try ConfigLoader.check(Data(config("").utf8), file: "c").fleet)
        let full = try ConfigLoader.check(
            Data(
                config(
                    """
                    fleet: { remote: "ssh://git@hub.plant/lastset.git", interval: "60s", branch: "main", host: "line-7",
                             sshKey: "/etc/lastset/hub_key", requireSigned: true, allowedSigners: "/etc/lastset/allowed_signers",
                             signingKey: "/etc/lastset/signing_key", knownHosts: "/etc/lastset/hub_known_hosts" },
                    """
                ).utf8), file: "c")
        XCTAssertEqual(
            full.fleet,
            FleetConfig(
                remote: "ssh://git@hub.plant/lastset.git", interval: "60s", branch: "main", host: "line-7",
                sshKey: "/etc/lastset/hub_key", requireSigned: true, allowedSigners: "/etc/lastset/allowed_signers",
                signingKey: "/etc/lastset/signing_key", knownHosts: "/etc/lastset/hub_known_hosts"))
        let minimal = try ConfigLoader.check(Data(config(#"fleet: { remote: "/srv/lastset.git" },"#).utf8), file: "c")
        XCTAssertEqual(minimal.fleet, FleetConfig(remote: "/srv/lastset.git"))
    }

    func testMistakesAreNamedWithTheirPathAndValue() {
        let cases: [(String, [(String, String)])] = [
            (#"fleet: { interval: "60s" },"#, [("fleet.remote", "missing")]),
            (#"fleet: { remote: "/srv/h.git", remtoe: "x" },"#, [("fleet.remtoe", "remtoe")]),
            (#"fleet: { remote: "-uhack" },"#, [("fleet.remote", "-uhack")]),
            (#"fleet: { remote: "/srv/h.git", interval: "often" },"#, [("fleet.interval", "often")]),
            (#"fleet: { remote: "/srv/h.git", host: "line 7" },"#, [("fleet.host", "line 7")]),
            (#"fleet: { remote: "/srv/h.git", sshKey: "keys/hub" },"#, [("fleet.sshKey", "absolute")]),
            (#"fleet: { remote: "/srv/h.git", knownHosts: "known_hosts" },"#, [("fleet.knownHosts", "absolute")]),
            (
                #"fleet: { remote: "/srv/h.git", requireSigned: true },"#,
                [("fleet.requireSigned", "allowedSigners"), ("fleet.requireSigned", "signingKey")]
            ),
            (#"fleet: { remote: "/srv/h.git", requireSigned: "yes" },"#, [("fleet.requireSigned", "yes")]),
            (#"fleet: "git@hub:lastset.git","#, [("fleet", "object")]),
        ]
        for (text, expected) in cases {
            do {
                _ = try ConfigLoader.check(Data(config(text).utf8), file: "c")
                XCTFail("accepted: \(text)")
            } catch {
                XCTAssertEqual(error.problems.map(\.path), expected.map(\.0), text)
                for (problem, (_, fragment)) in zip(error.problems, expected) {
                    XCTAssertTrue("\(problem)".contains(fragment), "\(problem) lacks \(fragment)")
                }
            }
        }
    }
}
