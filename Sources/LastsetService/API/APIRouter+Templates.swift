import Foundation
import LastsetCore
import LastsetEngine
import LastsetHTTP

/// A page's template versions: list, show, file, import, compare, promote, delete (docs/API.md).
extension APIRouter {
    /// `GET /v1/pages/{page}/templates`: every version, newest first, a broken one named.
    func listTemplates(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        return .api(200, try await engine.listings(for: page))
    }

    /// `GET /v1/pages/{page}/templates/{version}`: the template, and whether it applies to the page as it is now.
    func showTemplate(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        let version = try versionNumber(call.parameter("version"))
        let template = try await engine.archive.load(pageId: page.id, version: version)
        let applicability = TemplateApplicability(TemplateAdmission.admit(template, to: page, localHost: engine.archive.host))
        return .api(200, ShownTemplate(template: template, applicableHere: applicability))
    }

    /// `GET /v1/pages/{page}/templates/{version}/file`: the template file as stored, or (`?format=ios-archive`)
    /// the legacy app's form.
    func templateFile(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        let version = try versionNumber(call.parameter("version"))
        switch call.request.query["format"] {
        case nil, "template"?: break
        case "ios-archive"?:
            // The legacy app's form: a binary NSKeyedArchiver plist of SARegister (no identity, no checksum).
            let template = try await engine.archive.load(pageId: page.id, version: version)
            return HTTPResponse(
                status: 200, headers: ["Content-Type": "application/octet-stream"],
                body: IOSArchive.archive(for: template, page: page))
        case let other?:
            throw APIError.badRequest(.badParameter, "format \"\(other)\" is not template or ios-archive")
        }
        let data = try await engine.archive.exportData(pageId: page.id, version: version)
        return HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: [UInt8](data))
    }

    /// `POST /v1/pages/{page}/templates`: a template file, or a legacy iOS archive (recognised, or
    /// `?format=ios-archive`), archived as the page's next version.
    func importTemplate(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        let template: Template
        switch call.request.query["format"] {
        case "ios-archive"?,
            nil where IOSArchive.recognises(call.request.body):
            template = try await importIOSArchive(call, page: page)
        case nil, "template"?:
            template = try await engine.importTemplate(Data(call.request.body), into: page, who: call.who)
        case let other?:
            throw APIError.badRequest(.badParameter, "format \"\(other)\" is not template or ios-archive")
        }
        publish(pageId: template.pageId, versionId: template.versionId.id, kind: .import, who: call.who)
        return .api(201, template)
    }

    /// `GET /v1/pages/{page}/templates/{version}/diff?against=VERSION`: what differs between two versions.
    func compareVersions(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        guard let againstText = call.query("against") else {
            throw APIError.badRequest(.missingParameter, "a version diff needs ?against=VERSION")
        }
        let version = try versionNumber(call.parameter("version"))
        let against = try versionNumber(againstText)
        let a = try await engine.archive.load(pageId: page.id, version: version)
        let b = try await engine.archive.load(pageId: page.id, version: against)
        return .api(200, TemplateComparison.diff(a, against: b))
    }

    /// `POST /v1/pages/{page}/templates/{version}/promote`: the version archived again as the latest.
    func promote(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        guard let version = try versionNumber(call.parameter("version")) else {
            throw APIError.badRequest(.badVersion, "promote needs a version, not \"latest\"")
        }
        let reason = try historyReason(call)
        let stored = try await engine.promote(page: page, version: version, who: call.who, reason: reason)
        publish(pageId: stored.pageId, versionId: stored.versionId.id, kind: .promote, who: call.who)
        return .api(201, stored)
    }

    /// `DELETE /v1/pages/{page}/templates/{version}` (`?force` deletes a version devices hold).
    func deleteVersion(_ call: APICall) async throws -> HTTPResponse {
        let page = try await page(call.parameter("page"))
        guard let version = try versionNumber(call.parameter("version")) else {
            throw APIError.badRequest(.badVersion, "delete needs a version, not \"latest\"")
        }
        let force = call.flag("force")
        let reason = try historyReason(call)
        let deletion = try await engine.deleteVersion(page: page, version: version, force: force, who: call.who, reason: reason)
        publishRecords()
        return .api(200, deletion)
    }

    /// `?reason=`: why a version is deleted or promoted (1…500 printable characters), carried in its audit record
    /// and, in a fleet, in its record on every host.
    func historyReason(_ call: APICall) throws -> String? {
        guard let reason = call.request.query["reason"] else { return nil }
        guard (1...500).contains(reason.count),
            !reason.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw APIError.badRequest(.badParameter, "reason \"\(reason.prefix(80))\" must be 1...500 printable characters") }
        return reason
    }

    /// Commits this host's delete and promote records to the fleet repository without holding up the answer (the
    /// next sync commits anything left behind).
    func publishRecords() {
        guard let fleet else { return }
        let log = fleetLog
        Task { if let warning = await fleet.publishRecords() { log(warning) } }
    }

    /// Commits a version this host just archived to the fleet repository, without holding up the answer or the
    /// job (a sync in progress holds the repository; the next sync commits anything left behind).
    func publish(pageId: String, versionId: String, kind: AuditKind, who: String) {
        guard let fleet else { return }
        let log = fleetLog
        Task {
            if let warning = await fleet.record(pageId: pageId, versionId: versionId, kind: kind, who: who) { log(warning) }
        }
    }
}
