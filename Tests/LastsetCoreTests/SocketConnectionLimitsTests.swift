import LastsetCore
import XCTest

/// The one rule for the Unix socket's slots (issue 19, defect 15): no user can take them all, and root keeps some.
final class SocketConnectionLimitsTests: XCTestCase {
    func testWhoMayOpenAnotherConnection() {
        let limits = SocketConnectionLimits(total: 64, perUser: 8, reserved: 8, privileged: [0, 998])
        typealias R = SocketConnectionLimits.Refusal
        // 1000, 1001, … each holding 8: seven users fill the 56 unprivileged slots.
        let sevenFull = Dictionary(uniqueKeysWithValues: (1000..<1007).map { (UInt32($0), 8) })
        let cases: [(UInt32, [UInt32: Int], R?, String)] = [
            (1000, [:], nil, "the first connection"),
            (1000, [1000: 7], nil, "the eighth of one user"),
            (1000, [1000: 8], .perUser(uid: 1000, limit: 8), "a ninth from one user: 64 of them can never take every slot"),
            (1001, [1000: 8], nil, "another user while the first holds its share"),
            (0, [0: 8], .perUser(uid: 0, limit: 8), "root has a share too"),
            (0, [1000: 8], nil, "root while a user holds its share"),
            (
                1007, sevenFull, .othersFull(uid: 1007, limit: 56, reserved: 8),
                "an eighth user when seven fill the unprivileged slots"
            ),
            (0, sevenFull, nil, "root still gets a reserved slot"),
            (998, sevenFull.merging([0: 7]) { $1 }, nil, "the daemon's own user uses the reserve too"),
            (0, sevenFull.merging([998: 8]) { $1 }, .full(limit: 64), "every slot in use"),
            (4_294_967_295, [4_294_967_295: 8], .perUser(uid: 4_294_967_295, limit: 8), "unknown credentials count as one user"),
        ]
        for (uid, held, expected, name) in cases {
            XCTAssertEqual(limits.refusal(uid: uid, held: held), expected, name)
        }
    }

    func testTheDefaultsKeepSlotsForOthersAndRootAndRefusalsSayWhy() {
        let limits = SocketConnectionLimits()
        XCTAssertEqual([limits.total, limits.perUser, limits.reserved], [64, 8, 8])
        XCTAssertLessThan(limits.perUser, limits.total - limits.reserved)
        XCTAssertEqual(SocketConnectionLimits.maxPerUser, 56)
        XCTAssertEqual(
            SocketConnectionLimits.Refusal.perUser(uid: 1000, limit: 8).description,
            "uid 1000 already holds 8 connections to the API socket, the most one user may (api.socketConnectionsPerUser); close one and try again"
        )
    }
}
