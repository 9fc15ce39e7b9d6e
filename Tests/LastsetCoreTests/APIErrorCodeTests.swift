import Foundation
import XCTest

@testable import LastsetCore

/// The API's error codes: the wire text of every code pinned (a code is part of the documented API: changing one
/// is a `/v2/`), and every code documented in docs/API.md.
final class APIErrorCodeTests: XCTestCase {
    private let wire: [APIErrorCode: String] = [
        .alreadyLatest: "already_latest", .auditChainIntact: "audit_chain_intact", .missingReason: "missing_reason",
        .alreadySigned: "already_signed", .approvalRequired: "approval_required", .badMeaning: "bad_meaning",
        .changeClosed: "change_closed", .dryRunRefused: "dry_run_refused", .notApproved: "not_approved",
        .ownRequest: "own_request", .staleApproval: "stale_approval",
        .backupFailed: "backup_failed", .badEndpoint: "bad_endpoint",
        .badIdentity: "bad_identity", .badJSON: "bad_json", .badParameter: "bad_parameter", .badPath: "bad_path",
        .badRequest: "bad_request", .badUnit: "bad_unit", .badUnits: "bad_units", .badBauds: "bad_bauds",
        .badTimeout: "bad_timeout", .badVersion: "bad_version", .bodyTooLarge: "body_too_large",
        .configInvalid: "config_invalid", .definitionSame: "definition_same",
        .definitionUnpublished: "definition_unpublished", .definitionInvalid: "definition_invalid",
        .definitionNotTaken: "definition_not_taken", .csrfFailed: "csrf_failed", .deviceBusy: "device_busy",
        .duplicateKey: "duplicate_key", .encodingFailed: "encoding_failed", .forbiddenHost: "forbidden_host",
        .forbiddenOrigin: "forbidden_origin", .forbiddenRole: "forbidden_role", .identificationFailed: "identification_failed",
        .identificationUnsupported: "identification_unsupported", .identityReadFailed: "identity_read_failed",
        .internal: "internal", .invalidArchive: "invalid_archive", .invalidName: "invalid_name",
        .invalidTemplate: "invalid_template", .jobFailed: "job_failed", .lineSettings: "line_settings",
        .methodNotAllowed: "method_not_allowed", .missingParameter: "missing_parameter", .missingTarget: "missing_target",
        .noFleet: "no_fleet", .noPages: "no_pages", .noRole: "no_role", .noSession: "no_session", .noSessions: "no_sessions",
        .noTemplate: "no_template", .notFound: "not_found", .nullValue: "null_value", .pageMismatch: "page_mismatch",
        .pageNotOnDevice: "page_not_on_device", .shuttingDown: "shutting_down", .signingFailed: "signing_failed",
        .notAReplay: "not_a_replay", .storage: "storage",
        .templateCorrupt: "template_corrupt", .tooManyConnections: "too_many_connections", .unauthorized: "unauthorized",
        .unexpectedBody: "unexpected_body", .unknownDevice: "unknown_device", .unknownKey: "unknown_key",
        .unknownPage: "unknown_page", .unknownVersion: "unknown_version", .versionChanged: "version_changed",
        .versionConflict: "version_conflict", .versionInUse: "version_in_use",
    ]

    func testEveryCodesWireTextIsPinned() throws {
        XCTAssertEqual(Set(wire.keys), Set(APIErrorCode.allCases), "a code without its pinned wire text, or one removed")
        for code in APIErrorCode.allCases {
            XCTAssertEqual(code.rawValue, wire[code], "\(code)")
            XCTAssertEqual(APIErrorCode(rawValue: code.rawValue), code)
            // The JSON form is the bare wire text.
            XCTAssertEqual(String(decoding: try JSONEncoder().encode([code]), as: UTF8.self), "[\"\(code.rawValue)\"]")
        }
        XCTAssertEqual(Set(wire.values).count, wire.count, "two codes with one wire text")
    }

    func testEveryCodeIsDocumented() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/API.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let errors = try XCTUnwrap(text.range(of: "### Errors\n"), "docs/API.md has no Errors section")
        let header = try XCTUnwrap(
            text.range(of: "| Status | Code | Meaning | Produced by |\n", range: errors.upperBound..<text.endIndex))
        let rows = text[header.upperBound...].split(separator: "\n").prefix { $0.hasPrefix("|") }.dropFirst()
        let documented = Set(
            rows.map { row in
                row.split(separator: "|")[1].trimmingCharacters(in: CharacterSet(charactersIn: " `"))
            })
        XCTAssertEqual(documented, Set(APIErrorCode.allCases.map(\.rawValue)), "docs/API.md's table of codes, \"Errors\"")
    }
}
