import Foundation
import LastsetClient
import LastsetCore
import LastsetFormats
import TestSupport
import XCTest

/// Four-eyes change control against real peers (docs/CHANGE-CONTROL.md): operator ann requests a change to a
/// protected page, cannot approve it; approver cat cannot approve her own; approver bob approves; mbpoll changes a
/// target register between the approval and the apply → "stale approval", no frame in the simulator's write log;
/// requested and approved again, applied, read back with mbpoll; every step audited with name, time, meaning and
/// reason. A reason made mandatory refuses a write without one.
final class ChangeControlEndToEndTests: XCTestCase {
    private var sims: [SimulatorProcess] = []

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
    }

    static let pages = """
        { id: "grid", registers: [
          { registerId: "grid.limit", address: 10, type: "u16", max: 5000 },
          { registerId: "grid.ramp", address: 11, type: "u16" },
        ] },
        { id: "comfort", registers: [ { registerId: "comfort.level", address: 20, type: "u16" } ] }
        """

    private func start() throws -> (DaemonHarness, target: Int, [String: HTTPClient]) {
        let dir = try TestPaths.temporaryDirectory(prefix: "change-e2e")
        let simConfig = dir.appendingPathComponent("sim.json")
        try "{ version: 1, devices: [], pages: [\(Self.pages)] }".write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("ref.json")
        try #"{"grid.limit": 4200, "grid.ramp": 30, "comfort.level": 3}"#.write(to: values, atomically: true, encoding: .utf8)
        let base = ["--config", simConfig.path, "--tcp", "127.0.0.1:0"]
        let reference = try SimulatorProcess.start(base + ["--values", values.path])
        let target = try SimulatorProcess.start(base + ["--log-writes"])
        sims += [reference, target]
        let tcp = try TestPorts.freeLoopbackPort()
        let tokens = ChangeControlFuzzTests.secrets.keys.sorted().map {
            "{ name: \"\($0)\", role: \"\(ChangeControlFuzzTests.roles[$0]!.rawValue)\", sha256: \"\(SHA256.hex(Array(ChangeControlFuzzTests.secrets[$0]!.utf8)))\" }"
        }
        let daemon = try DaemonHarness(
            config: """
                { version: 1,
                  api: { tcp: { listen: "127.0.0.1:\(tcp)", tokens: [\(tokens.joined(separator: ", "))] } },
                  devices: [
                    { id: "ref", endpoint: "tcp://127.0.0.1:\(reference.port!)", unit: 1, pages: ["grid", "comfort"] },
                    { id: "inv", endpoint: "tcp://127.0.0.1:\(target.port!)", unit: 1, pages: ["grid", "comfort"] },
                  ],
                  pages: [\(Self.pages)],
                  changeControl: { protectedRegisters: ["grid.limit"], reasonRequired: true },
                }
                """)
        var clients: [String: HTTPClient] = [:]
        for (name, secret) in ChangeControlFuzzTests.secrets {
            clients[name] = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(tcp)), timeout: .seconds(30), bearerToken: secret)
        }
        for page in ["grid", "comfort"] {
            let r = try clients["ann"]!.send(
                method: "POST", path: "/v1/pages/\(page)/capture?wait=1", body: Array(#"{"device":"ref"}"#.utf8))
            XCTAssertEqual(r.status, 200, r.text)
        }
        return (daemon, target.port!, clients)
    }

    private func post(_ client: HTTPClient, _ path: String, _ body: String) throws -> HTTPClientResponse {
        try client.send(method: "POST", path: path, body: Array(body.utf8))
    }

    private func code(_ r: HTTPClientResponse) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    private func request(_ r: HTTPClientResponse) throws -> ChangeRequest {
        try APICoding.decoder().decode(ChangeRequest.self, from: Data(r.body))
    }

    /// Write requests the target received (the daemon's and mbpoll's alike).
    private var writes: Int { sims[1].writeLines.count }

    /// The target's write count once `n` arrived (its log is read on a thread of its own), or after 2 s.
    private func writes(reaching n: Int) -> Int {
        let end = Date().addingTimeInterval(2)
        while writes < n && Date() < end { usleep(2_000) }
        return writes
    }

    func testRequestApproveStaleAndApplyWithEveryStepSigned() throws {
        let (daemon, port, c) = try start()
        let (ann, bob, cat) = (c["ann"]!, c["bob"]!, c["cat"]!)

        // A protected register makes the page protected: no direct write, whatever the role or reason.
        let direct = try post(cat, "/v1/pages/grid/apply?wait=1", #"{"device":"inv","reason":"now"}"#)
        XCTAssertEqual(direct.status, 409, direct.text)
        XCTAssertEqual(code(direct), "approval_required")
        XCTAssertTrue(direct.text.contains("holds protected register grid.limit"), direct.text)
        // An unprotected page writes, with a reason only.
        let noReason = try post(ann, "/v1/pages/comfort/apply?wait=1", #"{"device":"inv"}"#)
        XCTAssertEqual(code(noReason), "missing_reason", noReason.text)
        XCTAssertEqual(try post(ann, "/v1/pages/comfort/apply?wait=1", #"{"device":"inv","reason":"winter"}"#).status, 200)
        let comfort = try XCTUnwrap(try daemon.auditRecords().last { $0.kind == .replay })
        XCTAssertEqual([comfort.who, comfort.reason, comfort.meaning?.rawValue], ["token:ann", "winter", "authorship"])
        XCTAssertEqual(writes(reaching: 1), 1)

        // ann requests; she cannot approve (an operator), cat cannot approve her own request.
        let filed = try post(ann, "/v1/changes", #"{"page":"grid","device":"inv","reason":"grid code 2027"}"#)
        XCTAssertEqual(filed.status, 201, filed.text)
        let first = try request(filed)
        XCTAssertEqual(first.plan.registers.map(\.status), [.differs, .differs], "the diff in view")
        XCTAssertEqual(code(try post(ann, "/v1/changes/\(first.id)/approve", #"{"meaning":"approval","reason":"mine"}"#)), "forbidden_role")
        XCTAssertEqual(code(try post(ann, "/v1/changes/\(first.id)/apply", "{}")), "not_approved")
        let cats = try request(try post(cat, "/v1/changes", #"{"page":"grid","device":"inv","reason":"cat's own"}"#))
        let own = try post(cat, "/v1/changes/\(cats.id)/approve", #"{"meaning":"approval","reason":"looks fine"}"#)
        XCTAssertEqual(own.status, 403)
        XCTAssertEqual(code(own), "own_request")

        // bob approves ann's; the machine changes before the apply: stale, nothing written.
        let approved = try post(bob, "/v1/changes/\(first.id)/approve", #"{"meaning":"approval","reason":"checked"}"#)
        XCTAssertEqual(try request(approved).state, .approved, approved.text)
        try Mbpoll.writeHolding(port: port, unit: 1, address: 11, values: [7])
        XCTAssertEqual(writes(reaching: 2), 2)
        let stale = try post(ann, "/v1/changes/\(first.id)/apply", "{}")
        XCTAssertEqual(stale.status, 409, stale.text)
        XCTAssertEqual(code(stale), "stale_approval")
        usleep(200_000)
        XCTAssertEqual(writes, 2, "mbpoll's write, and no frame of the stale apply")
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 10, count: 2), [65535, 7])
        let closed = try request(try ann.send(method: "GET", path: "/v1/changes/\(first.id)"))
        XCTAssertEqual(closed.state, .stale)
        XCTAssertEqual(code(try post(ann, "/v1/changes/\(first.id)/apply", "{}")), "change_closed")

        // Requested and approved again: applied, read back on the machine itself.
        let second = try request(try post(ann, "/v1/changes", #"{"page":"grid","device":"inv","reason":"grid code 2027, again"}"#))
        XCTAssertNotEqual(second.hash, first.hash, "the as-found values changed")
        _ = try post(cat, "/v1/changes/\(second.id)/approve", #"{"meaning":"review","reason":"read it"}"#)
        XCTAssertEqual(code(try post(ann, "/v1/changes/\(second.id)/apply", "{}")), "not_approved", "a review releases nothing")
        XCTAssertEqual(try request(try post(bob, "/v1/changes/\(second.id)/approve", #"{"meaning":"approval","reason":"ok"}"#)).state, .approved)
        let applied = try post(ann, "/v1/changes/\(second.id)/apply", #"{"reason":"commissioning"}"#)
        XCTAssertEqual(applied.status, 200, applied.text)
        XCTAssertEqual(try Mbpoll.readHolding(port: port, unit: 1, address: 10, count: 2), [4200, 30])
        XCTAssertEqual(code(try post(ann, "/v1/changes/\(second.id)/apply", "{}")), "change_closed", "applied once")

        // The audit: the request, each signature and the write, each with name, time, meaning and reason.
        let audit = try daemon.auditRecords().filter { $0.changeRequest == second.id }
        XCTAssertEqual(audit.map(\.kind), [.changeRequest, .approval, .approval, .replay])
        XCTAssertEqual(audit.map(\.who), ["token:ann", "token:cat", "token:bob", "token:ann"])
        XCTAssertEqual(audit.map { $0.meaning?.rawValue ?? "" }, ["authorship", "review", "approval", "authorship"])
        XCTAssertEqual(audit.map { $0.reason ?? "" }, ["grid code 2027, again", "read it", "ok", "commissioning"])
        let write = try XCTUnwrap(audit.last)
        XCTAssertEqual(write.result, .succeeded)
        XCTAssertEqual(write.approvals?.map(\.who), ["token:ann", "token:cat", "token:bob"])
        XCTAssertEqual(write.approvals?.map(\.meaning), [.authorship, .review, .approval])
        let staleRecord = try XCTUnwrap(try daemon.auditRecords().last { $0.changeRequest == first.id && $0.kind == .replay })
        XCTAssertEqual(staleRecord.result, .refused)
        XCTAssertTrue(staleRecord.message?.contains("stale approval") ?? false, staleRecord.message ?? "")

        let list = try daemon.cli(["change", "list"])
        XCTAssertEqual(list.status, 0, list.stderr)
        XCTAssertTrue(list.stdout.contains("\(second.id)  applied"), list.stdout)
        let show = try daemon.cli(["change", "show", first.id])
        XCTAssertTrue(show.stdout.contains("approval by token:bob"), show.stdout)
        XCTAssertTrue(show.stdout.contains("outcome: refused: stale approval"), show.stdout)
    }
}
