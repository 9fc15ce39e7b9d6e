import LastsetCore
import XCTest

/// The one rule for a write after a dry run: the version confirmed, or a refusal.
final class VersionPinTests: XCTestCase {
    func testAWriteGoesAheadOnlyWithTheConfirmedVersion() {
        let cases: [(String?, String?, Bool, String)] = [
            (nil, "6", false, "nothing pinned: the request decides"),
            ("5", "5", false, "the confirmed version"),
            ("5", "6", true, "latest moved on"),
            ("line-7-3", "line-8-1", true, "a fleet sync brought another host's version"),
            ("5", nil, true, "deleted since"),
        ]
        for (confirmed, resolved, refused, name) in cases {
            let refusal = VersionPin.refusal(pageId: "heating", confirmed: confirmed, resolved: resolved)
            XCTAssertEqual(refusal != nil, refused, name)
        }
        XCTAssertEqual(
            VersionPin.refusal(pageId: "heating", confirmed: "5", resolved: "6"),
            "heating: v5 was confirmed, but it now resolves to v6; run the dry run again and confirm what will be written")
    }
}
