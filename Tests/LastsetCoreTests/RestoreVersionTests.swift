import Foundation
import LastsetCore
import XCTest

/// Which version a restore writes (`RestoreVersion.choose`): the one decision behind the replacement policy's restore
/// and the console's. Table-driven, no server.
final class RestoreVersionTests: XCTestCase {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    static func applied(_ versionId: String) -> AppliedTemplate {
        AppliedTemplate(
            version: Int(versionId) ?? 1, versionId: versionId, pageHash: "sha256:x", appliedAt: t0, appliedBy: "token:olga",
            job: "j-\(versionId)", entries: [])
    }

    static func mark(_ reason: UnverifiedMark.Reason) -> UnverifiedMark {
        UnverifiedMark(device: "press", pageId: "heating", since: t0, job: "j-9", reason: reason, message: "")
    }

    func testTheVersionIsTheOneLastVerifiedOnTheDeviceNeverSimplyTheLatest() {
        struct Case {
            let name: String
            let state: DevicePageState?
            let latest: String?
            let version: String?
            let reason: RestoreVersion.Reason
            let says: String
        }
        let state = { (applied: AppliedTemplate?, mark: UnverifiedMark?) in
            DevicePageState(device: "press", pageId: "heating", applied: applied, unverified: mark)
        }
        var failed = state(Self.applied("1"), nil)
        failed.setMark(Self.mark(.failed))
        var interrupted = state(Self.applied("1"), nil)
        interrupted.setMark(Self.mark(.interrupted))
        let cases = [
            Case(
                name: "verified is the latest", state: state(Self.applied("2"), nil), latest: "2", version: "2",
                reason: .lastVerified, says: "v2: last verified on press at 2027-01-15T08:00:00.000Z by token:olga; it is the latest"),
            Case(
                name: "a later version never verified here", state: state(Self.applied("1"), nil), latest: "3",
                version: "1", reason: .lastVerified,
                says: "v1: last verified on press at 2027-01-15T08:00:00.000Z by token:olga; the latest, v3, is not what press was last verified with"),
            Case(
                name: "a fleet version", state: state(Self.applied("line-7-4"), nil), latest: "5", version: "line-7-4",
                reason: .lastVerified, says: "the latest, v5, is not what press"),
            Case(
                name: "an interrupted replay keeps the version beside its mark", state: interrupted, latest: "2",
                version: "1", reason: .lastVerified, says: "an interrupted replay (job j-9) marked the page since"),
            Case(
                name: "a failed replay that changed registers leaves none", state: failed, latest: "2", version: nil,
                reason: .partiallyWritten,
                says: "nothing to restore: a failed replay (job j-9) left heating partially written on press"),
            Case(
                name: "never applied", state: state(nil, nil), latest: "2", version: nil, reason: .neverVerified,
                says: "nothing to restore: no version of heating was ever verified on press"),
            Case(
                name: "no state at all", state: nil, latest: nil, version: nil, reason: .neverVerified,
                says: "no version of heating was ever verified on press"),
            Case(
                name: "the latest unknown (not asked)", state: state(Self.applied("1"), nil), latest: nil, version: "1",
                reason: .lastVerified, says: "v1: last verified on press at 2027-01-15T08:00:00.000Z by token:olga"),
        ]
        for c in cases {
            let choice = RestoreVersion.choose(pageId: "heating", device: "press", state: c.state, latest: c.latest)
            XCTAssertEqual(choice.versionId, c.version, c.name)
            XCTAssertEqual(choice.reason, c.reason, c.name)
            XCTAssertEqual(choice.latestVersionId, c.latest, c.name)
            XCTAssertTrue(choice.explanation.contains(c.says), "\(c.name): \(choice.explanation)")
            XCTAssertEqual(choice.verifiedBy, c.version == nil ? nil : "token:olga", c.name)
        }
    }

    func testTheChoiceTravelsInTheReportAndTheRequestTakesVersions() throws {
        let choice = RestoreVersion.choose(
            pageId: "heating", device: "press",
            state: DevicePageState(device: "press", pageId: "heating", applied: Self.applied("1")), latest: "2")
        let report = ApplyAllReport(
            device: "press", dryRun: true,
            pages: [
                PageApplyResult(pageId: "heating", status: .planned, versionId: "1", restore: choice),
                PageApplyResult(pageId: "motion", status: .nothingToRestore, error: "nothing to restore"),
            ], stoppedAt: nil)
        XCTAssertTrue(report.succeeded, "a page with nothing to restore is not a failure")
        let data = try APICoding.encoder().encode(report)
        XCTAssertEqual(try APICoding.decoder().decode(ApplyAllReport.self, from: data), report)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains(#""reason":"lastVerified""#), text)
        XCTAssertTrue(text.contains(#""status":"nothingToRestore""#), text)
        let body = try RequestBody.decode(
            ApplyAllRequest.self, from: Array(#"{"dryRun":true,"versions":"lastVerified"}"#.utf8),
            shape: ApplyAllRequest.bodyShape)
        XCTAssertEqual(body.versions, .lastVerified)
        XCTAssertThrowsError(
            try RequestBody.decode(
                ApplyAllRequest.self, from: Array(#"{"versions":"verified"}"#.utf8),
                shape: ApplyAllRequest.bodyShape))
    }
}
