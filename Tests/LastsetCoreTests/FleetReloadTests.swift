import Foundation
import LastsetCore
import XCTest

/// Which fleet settings a reload applies and which it refuses, and why.
final class FleetReloadTests: XCTestCase {
    func testWhatAReloadAppliesAndWhatItRefuses() {
        let running = FleetConfig(remote: "ssh://git@hub/lastset.git", interval: "60s")
        func moved(_ change: (inout FleetConfig) -> Void) -> FleetConfig {
            var c = running
            change(&c)
            return c
        }
        let cases: [(FleetConfig?, FleetConfig?, String)] = [
            (nil, nil, "unchanged"),
            (running, running, "unchanged"),
            (running, moved { $0.host = "line-7" }, "unchanged"),  // the hostname, spelt out
            (running, moved { $0.branch = "main" }, "unchanged"),
            (running, moved { $0.remote = "ssh://git@hub2/lastset.git" }, "apply"),
            (running, moved { $0.interval = "5s" }, "apply"),
            (running, moved { $0.sshKey = "/etc/lastset/hub_key" }, "apply"),
            (running, moved { $0.knownHosts = "/etc/lastset/hub_known_hosts" }, "apply"),
            (
                running,
                moved {
                    $0.requireSigned = true
                    $0.allowedSigners = "/etc/lastset/allowed_signers"
                    $0.signingKey = "/etc/lastset/signing_key"
                }, "apply"
            ),
            (running, moved { $0.host = "line-8" }, "fleet.host"),
            (running, moved { $0.branch = "plant" }, "fleet.branch"),
            (nil, running, "fleet: joining"),
            (running, nil, "fleet: leaving"),
        ]
        for (old, new, expected) in cases {
            let verdict = FleetReload.decide(running: old, next: new, defaultHost: "line-7")
            switch verdict {
            case .unchanged: XCTAssertEqual(expected, "unchanged", "\(String(describing: new))")
            case .apply(let c):
                XCTAssertEqual(expected, "apply", "\(String(describing: new))")
                XCTAssertEqual(c, new)
            case .refused(let path, _, let message):
                XCTAssertTrue(
                    expected.hasPrefix(path)
                        && (expected == path || message.contains(String(expected.dropFirst(path.count + 2)))),
                    "\(expected): \(path): \(message)")
            }
        }
    }
}
