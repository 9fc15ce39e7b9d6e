import Foundation
import XCTest

@testable import LastsetCore

/// wb-mqtt-serial templates whose groups are wrong are refused with the problem named, never a trap.
final class WBTemplateTests: XCTestCase {
    func testAParameterOfAnUnknownGroupBesideOtherGroupsIsAProblem() throws {
        // Two parameters in groups device.groups does not have, beside a known one: sorting the pages by their group's
        // order used to unwrap a missing group and trap (lastset import-map --format wb crashed).
        let text = #"""
            { "device": { "groups": [ { "id": "comm", "order": 1 } ],
              "parameters": {
                "a": { "address": 1, "group": "comm" },
                "b": { "address": 2, "group": "nope" },
                "c": { "address": 3, "group": "other" } } } }
            """#
        XCTAssertThrowsError(try WBTemplate.pages(from: Data(text.utf8), pageId: "p")) { error in
            XCTAssertEqual(
                (error as? WBTemplate.ImportError)?.problems.map(\.description),
                [
                    #"device.parameters.b.group: no group in device.groups has this id (got "nope")"#,
                    #"device.parameters.c.group: no group in device.groups has this id (got "other")"#,
                ])
        }
    }
}
