import Foundation
import LastsetClient
import LastsetCore
import TestSupport
import XCTest

/// Hand-over certificates through the real daemon and CLI against pymodbus devices (docs/CERTIFICATE.md): a replay's
/// certificate whose every row equals an independent mbpoll read of the machine, signed so that `ssh-keygen -Y
/// verify` accepts it and refuses it after one byte changes; a failed replay's certificate naming what did not
/// take; files never written through a link nor over a file without --force.
final class CertificateEndToEndTests: XCTestCase {
    private var dir: URL!

    override func setUpWithError() throws {
        let dir = try TestPaths.temporaryDirectory(prefix: "certificate")
        self.dir = dir
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
    }

    /// The page: an identity, two registers in one window and two in another (`maxGap` keeps them apart).
    static func config(a: Int, b: Int) -> String {
        """
        { version: 1,
          devices: [
            { id: "press-a", endpoint: "tcp://127.0.0.1:\(a)", unit: 1, pages: ["heating"] },
            { id: "press-b", endpoint: "tcp://127.0.0.1:\(b)", unit: 1, pages: ["heating"], quirks: { timeout: "5s", retries: 0 } },
          ],
          pages: [
            {
              id: "heating", title: "Heating",
              identity: [ { registerId: "model", address: 0, type: "string(8)" } ],
              registers: [
                { registerId: "heating.mode", address: 100, type: "u16" },
                { registerId: "heating.setpoint", address: 101, type: "s16" },
                { registerId: "heating.limit", address: 120, type: "u16" },
                { registerId: "heating.delay", address: 121, type: "u16" },
              ],
            },
          ],
        }
        """
    }

    /// Each register's address and whether it is signed.
    private static let registers: [(id: String, address: Int, signed: Bool)] = [
        ("heating.mode", 100, false), ("heating.setpoint", 101, true), ("heating.limit", 120, false),
        ("heating.delay", 121, false),
    ]
    private static let model = DaemonEndToEndTests.text("PRS-200", bytes: 8)
    private static let reference: [Int: [UInt16]] = [0: model, 100: [2], 101: [UInt16(bitPattern: -150)], 120: [500], 121: [11]]
    private static let blank: [Int: [UInt16]] = [0: model, 100: [7], 101: [3], 120: [9], 121: [8]]

    /// The register's value on the machine now, read with mbpoll, as the certificate prints a recorded value.
    private func mbpoll(_ port: Int, _ register: (id: String, address: Int, signed: Bool)) throws -> String {
        let word = try Mbpoll.readHolding(port: port, unit: 1, address: register.address, count: 1)[0]
        return register.signed ? String(Int16(bitPattern: word)) : String(word)
    }

    /// Captures press-a, replays to press-b, and returns the replay's job id as the audit log records it.
    private func captureAndApply(_ daemon: DaemonHarness) throws -> (job: String, status: ReplayStatus) {
        let capture = try daemon.api("POST", "/v1/pages/heating/capture?wait=1", #"{"device":"press-a"}"#)
        XCTAssertEqual(try daemon.decode(JobInfo.self, capture).capture?.archived, true, capture.text)
        let apply = try daemon.api("POST", "/v1/pages/heating/apply?wait=1", #"{"device":"press-b"}"#)
        let status = try XCTUnwrap(try daemon.decode(JobInfo.self, apply).replay?.status, apply.text)
        let audit = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?kind=replay&device=press-b&limit=1"))
        return (try XCTUnwrap(audit.records.last?.job), status)
    }

    /// The register rows of the HTML page: each `<tr>` of the registers table as its cells' texts.
    private func htmlRows(_ html: String) throws -> [[String]] {
        let table = try XCTUnwrap(html.range(of: "<table class=\"registers\">")).upperBound
        let end = try XCTUnwrap(html.range(of: "</table>", range: table..<html.endIndex)).lowerBound
        let cell = try NSRegularExpression(pattern: "<td[^>]*>(.*?)</td>")
        return String(html[table..<end]).components(separatedBy: "</tr>").compactMap { line in
            let ns = line as NSString
            let cells = cell.matches(in: line, range: NSRange(location: 0, length: ns.length)).map {
                ns.substring(with: $0.range(at: 1)).replacingOccurrences(of: "&quot;", with: "\"")
            }
            return cells.isEmpty ? nil : cells
        }
    }

    /// `ssh-keygen -Y verify` of `file` against `file.sig` with the signer's allowed_signers line.
    private func verify(_ file: URL, _ signer: CertificateSigner) throws -> ProgramOutput {
        let allowed = dir.appendingPathComponent("allowed_signers")
        try (signer.allowedSignersLine + "\n").write(to: allowed, atomically: true, encoding: .utf8)
        return try ProgramRun.run(
            URL(fileURLWithPath: "/usr/bin/ssh-keygen"),
            ["-Y", "verify", "-f", allowed.path, "-I", signer.principal, "-n", "lastset-certificate", "-s", file.path + ".sig"],
            input: try Data(contentsOf: file), mergingStderr: true)
    }

    func testACompleteReplaysCertificateEqualsTheMachineAndItsSignatureVerifies() throws {
        let a = try pymodbusPeer(Self.reference)
        let b = try pymodbusPeer(Self.blank)
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        let (job, status) = try captureAndApply(daemon)
        XCTAssertEqual(status, .succeeded)

        let out = dir.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: true)
        let cli = try daemon.cli(["certificate", String(job.prefix(8)), "--output", out.path])
        XCTAssertEqual(cli.status, 0, cli.stdout + cli.stderr)
        XCTAssertTrue(cli.stdout.contains("Complete: every register written and read back equal (4 of 4)."), cli.stdout)
        let html = out.appendingPathComponent(CertificateFormat.html.fileName(job: job))
        let page = try String(contentsOf: html, encoding: .utf8)

        // Every row equals the machine as mbpoll reads it: written, read back and held; as found is the blank's.
        let rows = try htmlRows(page)
        XCTAssertEqual(rows.map { $0[0] }, Self.registers.map(\.id))
        for (row, register) in zip(rows, Self.registers) {
            let now = try mbpoll(b.port!, register)
            XCTAssertEqual(Array(row[2...4]), [now, now, now], register.id)
            XCTAssertEqual(row[1], String(Self.blank[register.address]![0]), register.id)
            XCTAssertEqual(Array(row[5...7]), ["template", "none", "took"], register.id)
        }
        XCTAssertTrue(page.contains("<th>Identity model</th><td>&quot;PRS-200&quot;"), page)
        XCTAssertTrue(page.contains("<th>Machine</th><td>press-b (tcp://127.0.0.1:\(b.port!), unit 1)</td>"), page)

        // The PDF, read back by pdftotext: every row equal to the machine as mbpoll reads it, and the facts.
        let pdf = out.appendingPathComponent(CertificateFormat.pdf.fileName(job: job))
        let pdfRows = try PDFText.registerRows(
            pdf, titles: HandOverCertificate.columns, registers: Set(Self.registers.map(\.id)))
        XCTAssertEqual(pdfRows.map { $0[0] }, Self.registers.map(\.id))
        for (row, register) in zip(pdfRows, Self.registers) {
            let now = try mbpoll(b.port!, register)
            XCTAssertEqual(
                Array(row[1...7]), [String(Self.blank[register.address]![0]), now, now, now, "template", "none", "took"],
                register.id)
        }
        let pdfText = try PDFText.text(pdf)
        for phrase in [
            "Complete: every register written and read back equal (4 of 4).",
            "Machine press-b (tcp://127.0.0.1:\(b.port!), unit 1)",
            "Identity model \"PRS-200\"", "Job \(job)", "Reason not recorded", "Approvals none recorded",
        ] {
            XCTAssertTrue(pdfText.contains(phrase), "\(phrase) in:\n\(pdfText)")
        }

        // The signature: the daemon's own key, made in its data directory (0600); good, then bad after one byte.
        let json = try daemon.decode(HandOverCertificate.self, try daemon.api("GET", "/v1/certificates/\(job)"))
        let signer = try XCTUnwrap(json.signer)
        XCTAssertTrue(cli.stdout.contains(signer.allowedSignersLine), cli.stdout)
        let key = daemon.dataDir.appendingPathComponent("certificate-key").path
        let mode = try XCTUnwrap(try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int)
        XCTAssertEqual(mode & 0o077, 0, String(mode, radix: 8))
        for file in [pdf, html] {
            let good = try verify(file, signer)
            XCTAssertEqual(good.status, 0, good.stdout)
            XCTAssertTrue(good.stdout.contains("Good \"lastset-certificate\" signature for \(signer.principal)"), good.stdout)
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count / 2] ^= 0x01
            try bytes.write(to: file)
            let bad = try verify(file, signer)
            XCTAssertNotEqual(bad.status, 0, "\(file.lastPathComponent) one byte changed: \(bad.stdout)")
        }
        // The PDF and its signature fetched again are the same bytes (the document's dates are the job's).
        let pdfAgain = try daemon.api("GET", "/v1/certificates/\(job)/pdf")
        XCTAssertEqual(pdfAgain.headers["content-type"], "application/pdf")
        XCTAssertEqual(pdfAgain.body, Array(try daemon.api("GET", "/v1/certificates/\(job)/pdf").body))
        XCTAssertEqual(
            try daemon.api("GET", "/v1/certificates/\(job)/pdf.sig").body,
            Array(try Data(contentsOf: URL(fileURLWithPath: pdf.path + ".sig"))))

        // Same job, same bytes: the page and its signature fetched again are identical.
        let again = try daemon.api("GET", "/v1/certificates/\(job)/html")
        XCTAssertEqual(again.body, CertificateHTML.render(json), "the page is the JSON's content laid out")
        XCTAssertEqual(
            try daemon.api("GET", "/v1/certificates/\(job)/html.sig").body,
            Array(try Data(contentsOf: URL(fileURLWithPath: html.path + ".sig"))))
        XCTAssertEqual(again.headers["content-type"], "text/html; charset=utf-8")
        try checkWritesAreGuarded(daemon, job: job, out: out)
        XCTAssertEqual(daemon.stop(), 0)
    }

    /// No file over an existing one without --force; never through a link, even with it.
    private func checkWritesAreGuarded(_ daemon: DaemonHarness, job: String, out: URL) throws {
        let existing = try daemon.cli(["certificate", job, "--output", out.path])
        XCTAssertEqual(existing.status, 1)
        XCTAssertTrue(existing.stderr.contains("already exists: give --force to replace it"), existing.stderr)
        let forced = try daemon.cli(["certificate", job, "--output", out.path, "--force"])
        XCTAssertEqual(forced.status, 0, forced.stderr)
        let html = out.appendingPathComponent(CertificateFormat.html.fileName(job: job))
        let signature = out.appendingPathComponent(CertificateFormat.htmlSignature.fileName(job: job))
        XCTAssertEqual(Array(try Data(contentsOf: html)), Array(try daemon.api("GET", "/v1/certificates/\(job)/html").body))

        let linked = dir.appendingPathComponent("linked")
        try FileManager.default.createDirectory(at: linked, withIntermediateDirectories: true)
        let victim = dir.appendingPathComponent("victim")
        try "keep me\n".write(to: victim, atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(
            atPath: linked.appendingPathComponent(signature.lastPathComponent).path, withDestinationPath: victim.path)
        for extra in [[], ["--force"]] {
            let r = try daemon.cli(["certificate", job, "--output", linked.path] + extra)
            XCTAssertEqual(r.status, 1, r.stdout)
            XCTAssertTrue(r.stderr.contains("is a symbolic link: a certificate is never written through a link"), r.stderr)
            XCTAssertEqual(try String(contentsOf: victim, encoding: .utf8), "keep me\n")
            // Nothing is written when one destination is refused.
            XCTAssertFalse(FileManager.default.fileExists(atPath: linked.appendingPathComponent(html.lastPathComponent).path))
        }
    }

    /// The id `lastset apply` prints is the audit job id `lastset certificate` takes (it printed none before: the
    /// job was looked up in `lastset audit`); `--json` carries it as the report's `auditJob`; a dry run has none.
    func testTheJobIdApplyPrintsMakesTheCertificate() throws {
        let a = try pymodbusPeer(Self.reference)
        let b = try pymodbusPeer(Self.blank)
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try daemon.cli(["capture", "heating", "--from", "press-a"]).status, 0)
        let dryRun = try daemon.cli(["apply", "heating", "--to", "press-b", "--dry-run"])
        XCTAssertEqual(dryRun.status, 0, dryRun.stderr)
        XCTAssertFalse(dryRun.stdout.contains("audit job"), dryRun.stdout)

        let apply = try daemon.cli(["apply", "heating", "--to", "press-b"])
        XCTAssertEqual(apply.status, 0, apply.stdout + apply.stderr)
        let printed = apply.stdout.split(separator: "\n").compactMap { line -> String? in
            line.hasPrefix("audit job ") ? String(line.dropFirst("audit job ".count)) : nil
        }
        XCTAssertEqual(printed.count, 1, apply.stdout)
        let job = try XCTUnwrap(printed.first)
        let audit = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?kind=replay&device=press-b"))
        XCTAssertEqual(audit.records.compactMap(\.job), [job], "the replay's record carries the printed id")

        let cli = try daemon.cli(["certificate", job, "--output", dir.path])
        XCTAssertEqual(cli.status, 0, cli.stdout + cli.stderr)
        XCTAssertTrue(cli.stdout.contains("Complete: every register written and read back equal (4 of 4)."), cli.stdout)
        let page = try String(contentsOf: dir.appendingPathComponent(CertificateFormat.html.fileName(job: job)), encoding: .utf8)
        XCTAssertTrue(page.contains(job), "the certificate names the job")
        // What it certifies is what the machine holds, read apart from Lastset: every row's value now is mbpoll's.
        let rows = try htmlRows(page)
        XCTAssertEqual(rows.map { $0[0] }, Self.registers.map(\.id))
        for (row, register) in zip(rows, Self.registers) { XCTAssertEqual(row[4], try mbpoll(b.port!, register), register.id) }

        // --json: the finished job's report carries it; the running job's id is another.
        let again = try daemon.cli(["--json", "apply", "heating", "--to", "press-b"])
        XCTAssertEqual(again.status, 0, again.stderr)
        let finished = try APICoding.decoder().decode(JobInfo.self, from: Data(again.stdout.utf8))
        let second = try XCTUnwrap(finished.replay?.auditJob)
        XCTAssertNotEqual(second, job)
        XCTAssertNotEqual(second, finished.id)
        let last = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?kind=replay&device=press-b&limit=1"))
        XCTAssertEqual(last.records.last?.job, second)
    }

    func testAFailedReplaysCertificateSaysWhatDidNotTake() throws {
        let a = try pymodbusPeer(Self.reference)
        // press-b clamps 120 to 100: the second window's verification finds 100, not 500, and the replay stops.
        let b = try pymodbusPeer(Self.blank, ["--clamp", "120:100"])
        let daemon = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        let (job, status) = try captureAndApply(daemon)
        XCTAssertEqual(status, .failed)

        let cli = try daemon.cli(["certificate", job, "--output", dir.path])
        XCTAssertEqual(cli.status, 1, "an incomplete job's certificate is written, and says so: " + cli.stdout + cli.stderr)
        let page = try String(contentsOf: dir.appendingPathComponent(CertificateFormat.html.fileName(job: job)), encoding: .utf8)
        XCTAssertTrue(page.contains("NOT COMPLETE: "), page)
        XCTAssertTrue(page.contains("heating.limit (did not take: read back differs)"), page)
        let rows = try htmlRows(page)
        let limit = try XCTUnwrap(rows.first { $0[0] == "heating.limit" })
        XCTAssertEqual(Array(limit[1...4]), ["9", "500", "100", try mbpoll(b.port!, Self.registers[2])])
        XCTAssertTrue(page.contains("<tr class=\"missed\"><td>heating.limit</td>"), page)
        let pdf = dir.appendingPathComponent(CertificateFormat.pdf.fileName(job: job))
        let pdfText = try PDFText.text(pdf)
        XCTAssertTrue(pdfText.contains("NOT COMPLETE: 1 of 4 registers did not take: heating.limit"), pdfText)
        let pdfRows = try PDFText.registerRows(pdf, titles: HandOverCertificate.columns, registers: Set(Self.registers.map(\.id)))
        XCTAssertEqual(pdfRows, rows, "the PDF says what the page says, row for row")
        // Whatever the certificate says the machine held at the end is what it holds.
        for (row, register) in zip(rows, Self.registers) where row[4] != "unknown" {
            XCTAssertEqual(row[4], try mbpoll(b.port!, register), register.id)
        }
        XCTAssertEqual(
            try daemon.decode(HandOverCertificate.self, try daemon.api("GET", "/v1/certificates/\(job)")).verdict, .incomplete)

        // Errors: no such job; a capture job (nothing handed over); an unknown format.
        XCTAssertEqual(try daemon.api("GET", "/v1/certificates/ffffffff").status, 404)
        let captures = try daemon.decode(AuditPage.self, try daemon.api("GET", "/v1/audit?kind=capture&limit=1"))
        let captureJob = try XCTUnwrap(captures.records.last?.job)
        let notReplay = try daemon.api("GET", "/v1/certificates/\(captureJob)")
        XCTAssertEqual(notReplay.status, 422, notReplay.text)
        XCTAssertTrue(notReplay.text.contains("not_a_replay"), notReplay.text)
        XCTAssertEqual(try daemon.api("GET", "/v1/certificates/\(job)/docx").status, 400)
        XCTAssertEqual(daemon.stop(), 0)
    }

    func testAnInterruptedReplaysCertificateSaysTheMachineMayBePartiallyWritten() throws {
        let a = try pymodbusPeer(Self.reference)
        // press-b answers the second window's write (120–121) only after 5 s: the daemon is killed while it waits.
        let b = try pymodbusPeer(Self.blank, ["--delay-write", "120:5000"])
        let first = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!))
        XCTAssertEqual(try first.cli(["capture", "heating", "--from", "press-a"]).status, 0)
        XCTAssertEqual(try first.api("POST", "/v1/pages/heating/apply", #"{"device":"press-b"}"#).status, 202)
        let deadline = Date().addingTimeInterval(10)
        func secondWindowArrived() throws -> Bool {
            try b.arrivals().contains { ($0.function == 16 || $0.function == 6) && $0.address == 120 }
        }
        while try !secondWindowArrived() && Date() < deadline { usleep(10_000) }
        XCTAssertTrue(try secondWindowArrived(), "the second window's write reached press-b")
        XCTAssertNotNil(first.stop(signal: SIGKILL), "killed")
        defer { withExtendedLifetime(first) {} }  // its directory holds the data directory
        let second = try DaemonHarness(config: Self.config(a: a.port!, b: b.port!), dataDirectory: first.dataDir)
        let audit = try second.decode(AuditPage.self, try second.api("GET", "/v1/audit?kind=replay&limit=1"))
        let record = try XCTUnwrap(audit.records.last)
        XCTAssertEqual(record.result, .interrupted)
        let job = try XCTUnwrap(record.job)

        let cli = try second.cli(["certificate", job, "--output", dir.path])
        XCTAssertEqual(cli.status, 1, cli.stdout + cli.stderr)
        let c = try second.decode(HandOverCertificate.self, try second.api("GET", "/v1/certificates/\(job)"))
        XCTAssertEqual(c.verdict, .interrupted)
        XCTAssertTrue(c.summary.hasPrefix("INTERRUPTED: the daemon stopped while writing"), c.summary)
        let outcomes = Dictionary(uniqueKeysWithValues: c.rows.map { ($0.registerId, $0.outcome) })
        for id in ["heating.limit", "heating.delay"] {
            XCTAssertTrue(outcomes[id]?.hasPrefix("in doubt: sent, no answer") ?? false, "\(id): \(outcomes[id] ?? "nil")")
        }
        XCTAssertTrue(c.facts.contains { $0.label == "Started" && $0.value != "not recorded" }, "\(c.facts)")
        // The PDF says it too, row for row as the JSON (a cell that wraps in its column: its first line is compared).
        let pdf = dir.appendingPathComponent(CertificateFormat.pdf.fileName(job: job))
        XCTAssertTrue(try PDFText.text(pdf).contains("INTERRUPTED: the daemon stopped while writing"))
        let pdfRows = try PDFText.registerRows(
            pdf, titles: HandOverCertificate.columns, registers: Set(Self.registers.map(\.id)))
        XCTAssertEqual(pdfRows.map { $0[0] }, c.rows.map(\.registerId))
        for (pdfRow, row) in zip(pdfRows, c.rows) {
            for (printed, cell) in zip(pdfRow, row.cells) {
                XCTAssertTrue(cell == printed || cell.hasPrefix(printed + " "), "\(row.registerId): \(printed) for \(cell)")
            }
        }
        // The first window's registers are what the machine holds. The interrupted record (made at the next start,
        // from the journal, without the page's definitions) recorded the words read back as bytes: printed in hex.
        for (row, register) in zip(c.rows, Self.registers).prefix(2) where row.held != "unknown" {
            let words = try Mbpoll.readHolding(port: b.port!, unit: 1, address: register.address, count: 1)
            let hex = "0x" + words.map { String(format: "%04X", $0) }.joined()
            XCTAssertTrue([hex, try mbpoll(b.port!, register)].contains(row.held), "\(register.id): \(row.held), machine \(hex)")
        }
        XCTAssertEqual(second.stop(), 0)
    }
}
