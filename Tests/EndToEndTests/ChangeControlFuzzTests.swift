import Foundation
import LastsetClient
import LastsetCore
import LastsetFormats
import TestSupport
import XCTest

/// An API fuzz of random call sequences against a protected page (docs/CHANGE-CONTROL.md): direct applies (one page
/// or the whole machine),
/// change requests, signatures with every meaning by every role (the requester too), applies of every request
/// (unapproved, approved, applied, stale, unknown), panel changes by mbpoll between them, dry runs. A model of the
/// rules predicts every answer; the simulators' own write logs count every frame. Asserted: every answer is the
/// model's, 0 write frames without a matching fresh approval, 100 % of stale approvals refused. The suite runs a
/// seeded 150 sequences; `make fuzz-changes` runs 10,000 (`LASTSET_CHANGE_FUZZ_SEQUENCES`, `LASTSET_CHANGE_FUZZ_SEED`).
final class ChangeControlFuzzTests: XCTestCase {
    private var sims: [SimulatorProcess] = []

    override func tearDown() {
        for s in sims { s.stop() }
        sims = []
    }

    static let page = """
        { id: "grid", registers: [
          { registerId: "grid.limit", address: 10, type: "u16", max: 5000 },
          { registerId: "grid.cosphi", address: 11, type: "s16", min: -100, max: 100 },
          { registerId: "grid.ramp", address: 12, type: "u16" },
        ] }
        """
    static let master: [UInt16] = [4200, 95, 30]
    static let secrets = ["ann": "ann-operator-secret-0001", "bob": "bob-approver-secret-0002", "cat": "cat-approver-secret-0003",
                          "vic": "vic-viewer-secret-00004"]
    static let roles = ["ann": APIRole.operator, "bob": .approver, "cat": .approver, "vic": .viewer]

    /// A request as the model knows it.
    struct ModelRequest {
        var id: String
        var machine: Int
        var requester: String
        /// What the machine held when the request was filed (its as-found values).
        var asFound: [UInt16]
        var state: ChangeState = .open
        var signed: Set<String> = []
        /// Dropped by the daemon: past the newest `ChangeRequests.keptClosed` closed requests when one was filed.
        var dropped = false
    }

    /// The model's world.
    struct World {
        var held: [[UInt16]]
        var requests: [ModelRequest] = []
        /// Daemon write frames each machine's log must show.
        var frames: [Int]
        var staleExpected = 0
        var staleRefused = 0
        var applied = 0
    }

    func testRandomCallSequencesNeverWriteWithoutAFreshApproval() throws {
        let env = ProcessInfo.processInfo.environment
        let sequences = Int(env["LASTSET_CHANGE_FUZZ_SEQUENCES"] ?? "") ?? 150
        var rng = SplitMix(seed: UInt64(env["LASTSET_CHANGE_FUZZ_SEED"] ?? "") ?? 24)
        let (daemon, ports, clients) = try start()
        _ = daemon
        var world = World(held: try ports.map { try Mbpoll.readHolding(port: $0, unit: 1, address: 10, count: 3) }, frames: [0, 0])
        for n in 0..<sequences {
            let length = Int(rng.next() % 6) + 1
            for _ in 0..<length { try step(&world, &rng, clients, ports) }
            try checkFrames(world, sequence: n)
        }
        print(
            "change-control fuzz: \(sequences) sequences, \(world.requests.count) requests, \(world.applied) applied, stale approvals \(world.staleRefused)/\(world.staleExpected) refused, write frames \(world.frames)"
        )
        XCTAssertEqual(world.staleRefused, world.staleExpected)
    }

    /// The daemon (page `grid` protected, four principals on TCP), the reference captured, two machines.
    private func start() throws -> (DaemonHarness, [Int], [String: HTTPClient]) {
        let dir = try TestPaths.temporaryDirectory(prefix: "change-fuzz")
        let simConfig = dir.appendingPathComponent("sim.json")
        try "{ version: 1, devices: [], pages: [\(Self.page)] }".write(to: simConfig, atomically: true, encoding: .utf8)
        let values = dir.appendingPathComponent("ref.json")
        try #"{"grid.limit": 4200, "grid.cosphi": 95, "grid.ramp": 30}"#.write(to: values, atomically: true, encoding: .utf8)
        let base = ["--config", simConfig.path, "--page", "grid", "--tcp", "127.0.0.1:0"]
        let reference = try SimulatorProcess.start(base + ["--values", values.path])
        sims.append(reference)
        var ports: [Int] = []
        for _ in 0..<2 {
            let sim = try SimulatorProcess.start(base + ["--log-writes"])
            sims.append(sim)
            ports.append(sim.port!)
        }
        let tcp = try TestPorts.freeLoopbackPort()
        let tokens = Self.secrets.keys.sorted().map {
            "{ name: \"\($0)\", role: \"\(Self.roles[$0]!.rawValue)\", sha256: \"\(SHA256.hex(Array(Self.secrets[$0]!.utf8)))\" }"
        }
        let config = """
            { version: 1,
              api: { tcp: { listen: "127.0.0.1:\(tcp)", tokens: [\(tokens.joined(separator: ", "))] } },
              devices: [
                { id: "ref", endpoint: "tcp://127.0.0.1:\(reference.port!)", unit: 1, pages: ["grid"] },
                { id: "m0", endpoint: "tcp://127.0.0.1:\(ports[0])", unit: 1, pages: ["grid"] },
                { id: "m1", endpoint: "tcp://127.0.0.1:\(ports[1])", unit: 1, pages: ["grid"] },
              ],
              pages: [\(Self.page)],
              changeControl: { protectedPages: ["grid"] },
            }
            """
        let daemon = try DaemonHarness(config: config)
        var clients: [String: HTTPClient] = [:]
        for (name, secret) in Self.secrets {
            clients[name] = HTTPClient(endpoint: .tcp(host: "127.0.0.1", port: UInt16(tcp)), timeout: .seconds(30), bearerToken: secret)
        }
        let capture = try clients["ann"]!.send(
            method: "POST", path: "/v1/pages/grid/capture?wait=1", body: Array(#"{"device":"ref"}"#.utf8))
        XCTAssertEqual(capture.status, 200, capture.text)
        return (daemon, ports, clients)
    }

    /// One random call, its answer checked against the model's.
    private func step(_ w: inout World, _ rng: inout SplitMix, _ clients: [String: HTTPClient], _ ports: [Int]) throws {
        let who = ["ann", "bob", "cat", "vic"][Int(rng.next() % 4)]
        let client = clients[who]!
        let machine = Int(rng.next() % 2)
        // Weighted towards the paths that reach a write: requests, signatures, applies (direct applies, panel changes
        // and dry runs each a tenth).
        switch [0, 1, 1, 2, 2, 2, 3, 3, 3, 4, 5][Int(rng.next() % 11)] {
        case 0:
            // A direct write of the page, or of the whole machine: never, whoever asks.
            let (path, body) =
                rng.next() % 2 == 0
                ? ("/v1/pages/grid/apply?wait=1", #"{"device":"m\#(machine)","reason":"fuzz"}"#)
                : ("/v1/devices/m\(machine)/apply?wait=1", #"{"reason":"fuzz"}"#)
            let r = try client.send(method: "POST", path: path, body: Array(body.utf8))
            expect(r, Self.roles[who]! == .viewer ? (403, "forbidden_role") : (409, "approval_required"), "direct \(path) by \(who)")
        case 1:
            let body = #"{"page":"grid","device":"m\#(machine)","reason":"fuzz \#(w.requests.count)"}"#
            let r = try client.send(method: "POST", path: "/v1/changes", body: Array(body.utf8))
            if Self.roles[who]! == .viewer {
                expect(r, (403, "forbidden_role"), "request by a viewer")
            } else {
                expect(r, (201, nil), "request by \(who)")
                let filed = try APICoding.decoder().decode(ChangeRequest.self, from: Data(r.body))
                w.requests.append(ModelRequest(id: filed.id, machine: machine, requester: who, asFound: w.held[machine]))
                // As the daemon does when a request is filed: only the newest 500 closed requests are kept.
                let closed = w.requests.indices.filter { w.requests[$0].state.isClosed && !w.requests[$0].dropped }
                for i in closed.dropLast(500) { w.requests[i].dropped = true }
            }
        case 2: try sign(&w, &rng, who, client)
        case 3: try apply(&w, &rng, who, client)
        case 4:
            let k = Int(rng.next() % 3)
            let value = UInt16(rng.next() % 3)
            try Mbpoll.writeHolding(port: ports[machine], unit: 1, address: 10 + k, values: [value])
            w.held[machine][k] = value
        default:
            let r = try client.send(method: "GET", path: "/v1/pages/grid/diff?device=m\(machine)")
            expect(r, (200, nil), "diff by \(who)")
        }
    }

    /// A signature with a random meaning on a random request (or an unknown one).
    private func sign(_ w: inout World, _ rng: inout SplitMix, _ who: String, _ client: HTTPClient) throws {
        let meaning: SignatureMeaning = [.approval, .approval, .approval, .review, .responsibility, .authorship][Int(rng.next() % 6)]
        let index = pick(w, &rng)
        let id = index.flatMap { $0 < w.requests.count ? w.requests[$0].id : nil } ?? "no-such-request"
        let r = try client.send(
            method: "POST", path: "/v1/changes/\(id)/approve", body: Array(#"{"meaning":"\#(meaning.rawValue)","reason":"ok"}"#.utf8))
        guard Self.roles[who]! >= .approver else { return expect(r, (403, "forbidden_role"), "signature by \(who)") }
        guard let i = index, i < w.requests.count, !w.requests[i].dropped else {
            return expect(r, (404, "not_found"), "signature of nothing (or of a request dropped)")
        }
        let q = w.requests[i]
        let want: (Int, String?)
        if q.state.isClosed {
            want = (409, "change_closed")
        } else if meaning == .authorship {
            want = (400, "bad_meaning")
        } else if who == q.requester {
            want = (403, "own_request")
        } else if q.signed.contains("\(who) \(meaning)") {
            want = (409, "already_signed")
        } else {
            want = (200, nil)
            w.requests[i].signed.insert("\(who) \(meaning)")
            if meaning == .approval { w.requests[i].state = .approved }
        }
        expect(r, want, "\(meaning) of \(q.id) (\(q.state), by \(q.requester)) by \(who)")
    }

    /// An apply of a random request (or an unknown one).
    private func apply(_ w: inout World, _ rng: inout SplitMix, _ who: String, _ client: HTTPClient) throws {
        let index = pick(w, &rng)
        let id = index.flatMap { $0 < w.requests.count ? w.requests[$0].id : nil } ?? "no-such-request"
        let r = try client.send(method: "POST", path: "/v1/changes/\(id)/apply", body: Array("{}".utf8))
        guard Self.roles[who]! >= .operator else { return expect(r, (403, "forbidden_role"), "apply by \(who)") }
        guard let i = index, i < w.requests.count, !w.requests[i].dropped else {
            return expect(r, (404, "not_found"), "apply of nothing (or of a request dropped)")
        }
        let q = w.requests[i]
        if q.state.isClosed { return expect(r, (409, "change_closed"), "apply of closed \(q.id)") }
        if q.state != .approved { return expect(r, (409, "not_approved"), "apply of unapproved \(q.id)") }
        if w.held[q.machine] != q.asFound {
            w.staleExpected += 1
            if r.status == 409, code(r) == "stale_approval" { w.staleRefused += 1 }
            w.requests[i].state = .stale
            return expect(r, (409, "stale_approval"), "apply of \(q.id): m\(q.machine) changed since the request")
        }
        expect(r, (200, nil), "apply of fresh approved \(q.id)")
        let job = try APICoding.decoder().decode(JobInfo.self, from: Data(r.body))
        XCTAssertEqual(job.replay?.status, .succeeded, job.replay?.reason ?? "")
        w.frames[q.machine] += job.replay?.writeFrames ?? 0
        w.held[q.machine] = Self.master
        w.requests[i].state = .applied
        w.applied += 1
    }

    /// A request to sign or apply: mostly the newest (so sequences reach approvals and applies), sometimes any, now
    /// and then one that does not exist (`count`).
    private func pick(_ w: World, _ rng: inout SplitMix) -> Int? {
        guard !w.requests.isEmpty else { return nil }
        let r = rng.next() % 10
        if r < 6 { return w.requests.count - 1 }
        if r < 9 { return Int(rng.next() % UInt64(w.requests.count)) }
        return w.requests.count
    }

    /// Each machine's log shows exactly the daemon's write frames the model allowed (FC16: the daemon's; mbpoll
    /// writes one register with FC06).
    private func checkFrames(_ w: World, sequence: Int) throws {
        for (m, sim) in sims.dropFirst().enumerated() {
            let end = Date().addingTimeInterval(2)
            func count() -> Int { sim.writeLines.filter { $0.hasPrefix("WRITE fc=16 ") }.count }
            while count() < w.frames[m] && Date() < end { usleep(2_000) }
            XCTAssertEqual(count(), w.frames[m], "sequence \(sequence): machine m\(m)'s daemon write frames")
        }
    }

    private func code(_ r: HTTPClientResponse) -> String? {
        (try? JSONSerialization.jsonObject(with: Data(r.body)) as? [String: Any])
            .flatMap { $0["error"] as? [String: Any] }?["code"] as? String
    }

    private func expect(_ r: HTTPClientResponse, _ want: (Int, String?), _ what: String, line: UInt = #line) {
        XCTAssertEqual(r.status, want.0, "\(what): \(r.text)", line: line)
        if let c = want.1 { XCTAssertEqual(code(r), c, "\(what): \(r.text)", line: line) }
    }
}
