import Foundation
import LastsetCore
import LastsetHTTP

/// Canned API bodies shared by the CLI tests.
enum Fixtures {
    /// 2027-01-15T08:00:00.000Z.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    /// t0 + 1.5 s.
    static let t1 = Date(timeIntervalSince1970: 1_800_000_001.5)

    static let devices = [
        {
            var d = DeviceStatus(
                id: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1, pages: ["heating", "cooling"], poll: "10s",
                reachable: true,
                lastSuccessAt: t0)
            d.applied = ["heating": AppliedSummary(version: 3, appliedAt: t0, appliedBy: "uid:1000", job: nil)]
            d.conformance = ["heating": .drifted, "cooling": .unknown]
            return d
        }(),
        DeviceStatus(
            id: "press-2", endpoint: "rtu:///dev/ttyUSB0?baud=19200", unit: 17, pages: ["heating"], poll: "0s", reachable: false,
            lastError: "timeout after 500ms", lastErrorAt: t0, busy: .apply),
        DeviceStatus(id: "bench", endpoint: "tcp://10.0.0.9:502", unit: 255, pages: [], poll: "0s"),
    ]

    static let pages = [
        PageSummary(
            id: "heating", title: "Heating", registers: 5, devices: ["press-1", "press-2"], latestVersion: 3,
            templateProblem: nil,
            hash: "sha256:aa"),
        PageSummary(
            id: "cooling", title: nil, registers: 12, devices: [], latestVersion: nil, templateProblem: "v2: checksum mismatch",
            hash: "sha256:bb"),
    ]

    static let health = HealthInfo(
        status: .ok, version: "0.1.0", startedAt: t0, configFile: "/etc/lastset/lastset.json",
        dataDirectory: "/var/lib/lastset", devices: 3, pages: 2, runningJobs: 1)

    static let listings = [
        TemplateListing(
            pageId: "heating", version: 3, capturedAt: t1, sourceDevice: "press-1", entryCount: 4, checksumOK: true, problem: nil),
        TemplateListing(
            pageId: "heating", version: 2, capturedAt: nil, sourceDevice: nil, entryCount: nil, checksumOK: false,
            problem: "checksum mismatch"),
    ]

    static let template = Template(
        pageId: "heating", pageHash: "sha256:aa", version: 3, capturedAt: t1, capturedBy: "uid:1000",
        source: TemplateSource(
            deviceId: "press-1", endpoint: "tcp://127.0.0.1:15020", unit: 1,
            identity: [RecordedValue(registerId: "model", address: 0, valueData: "4142", value: .text("AB"))]),
        entries: [
            TemplateEntry(
                registerId: "heating.mode", address: 100, length: 1, valueData: "0002", value: .unsigned(2), lastDate: t0),
            TemplateEntry(
                registerId: "heating.setpoint", address: 101, length: 1, valueData: "FF6A", value: .signed(-150), lastDate: t0),
            TemplateEntry(
                registerId: "heating.label", address: 110, length: 2, valueData: "4C340000", value: .text("L4"), lastDate: t0),
        ],
        skipped: [
            SkippedRegister(registerId: "heating.energy", address: 102, reason: .unset),
            SkippedRegister(registerId: "comm.unit", address: 200, reason: .notCloned),
        ])

    static let audit = AuditPage(
        records: [
            AuditRecord(
                time: t1, kind: .replay, who: "uid:1000", pageId: "heating", device: "press-2",
                endpoint: "tcp://127.0.0.1:15021",
                unit: 1, identity: [], templateVersion: 3, pageHash: "sha256:aa", result: .failed,
                message: "heating.setpoint read back -100",
                registers: [
                    AuditRegister(
                        registerId: "heating.setpoint", before: .signed(32767), after: .signed(-100), status: .replay(.mismatch),
                        written: .signed(-150), readBack: .signed(-100))
                ], job: "5e0c1a2b-77aa-4d2e-9c1f-0123456789ab"),
            AuditRecord(
                time: t0, kind: .capture, who: "token:ops", pageId: "heating", device: "press-1",
                endpoint: "tcp://127.0.0.1:15020",
                unit: 1, identity: [], templateVersion: nil, pageHash: "sha256:aa", result: .invalid, message: nil, registers: []
            ),
        ], unreadable: 1)

    /// A replay where every register verified.
    static let replaySucceeded = ReplayReport(
        pageId: "heating", templateVersion: 3, pageHash: "sha256:aa", target: "press-2", endpoint: "tcp://127.0.0.1:15021",
        unit: 1,
        options: ReplayOptions(), status: .succeeded, warnings: [],
        identity: [IdentityCheck(registerId: "model", expected: .text("AB"), actual: .text("AB"), matches: true)],
        beforeWrite: [StepResult(address: 1536, value: 6868, status: .ok)],
        afterWrite: [StepResult(address: 2304, value: 0, status: .ok)],
        registers: [
            RegisterResult(
                registerId: "heating.mode", address: 100, length: 1, status: .verified, expected: .unsigned(2),
                expectedData: "0002",
                actual: .unsigned(2), actualData: "0002"),
            RegisterResult(
                registerId: "heating.setpoint", address: 101, length: 1, status: .verified, expected: .signed(-150),
                expectedData: "FF6A", actual: .signed(-150), actualData: "FF6A"),
            RegisterResult(
                registerId: "heating.label", address: 110, length: 2, status: .verified, expected: .text("L4"),
                expectedData: "4C340000", actual: .text("L4"), actualData: "4C340000"),
        ],
        plan: [], fellBackToFC06: false, requests: 6, writeFrames: 4)

    /// A replay with onError rollback that hit a mismatch and a rejected write, then restored the target.
    static let replayRolledBack = ReplayReport(
        pageId: "heating", templateVersion: 3, pageHash: "sha256:aa", target: "press-2", endpoint: "tcp://127.0.0.1:15021",
        unit: 1,
        options: ReplayOptions(onError: .rollback), status: .failed, reason: "heating.setpoint read back -100, expected -150",
        stoppedAt: "after heating.setpoint", warnings: ["page definition changed since capture"], identity: [],
        beforeWrite: [], afterWrite: [StepResult(address: 2304, value: 0, status: .notAttempted)],
        registers: [
            RegisterResult(
                registerId: "heating.mode", address: 100, length: 1, status: .verified, expected: .unsigned(2),
                expectedData: "0002",
                actual: .unsigned(2), actualData: "0002", before: .unsigned(0)),
            RegisterResult(
                registerId: "heating.setpoint", address: 101, length: 1, status: .mismatch, expected: .signed(-150),
                expectedData: "FF6A", actual: .signed(-100), actualData: "FF9C", before: .signed(200)),
            RegisterResult(
                registerId: "heating.limit", address: 105, length: 1, status: .rejected, expected: .unsigned(7),
                expectedData: "0007",
                before: .unsigned(1), exceptionCode: 3, message: "illegal data value"),
            RegisterResult(
                registerId: "heating.label", address: 110, length: 2, status: .notAttempted, expected: .text("L4"),
                expectedData: "4C340000"),
        ],
        plan: [], fellBackToFC06: true,
        rollback: RollbackResult(
            restored: true,
            registers: [
                RegisterResult(
                    registerId: "heating.mode", address: 100, length: 1, status: .verified, expected: .unsigned(0),
                    expectedData: "0000", actual: .unsigned(0), actualData: "0000"),
                RegisterResult(
                    registerId: "heating.setpoint", address: 101, length: 1, status: .verified, expected: .signed(200),
                    expectedData: "00C8", actual: .signed(200), actualData: "00C8"),
            ]),
        requests: 11, writeFrames: 6)

    /// A dry run / diff: one register differs, one is unchanged.
    static let diff = ReplayReport(
        pageId: "heating", templateVersion: 2, pageHash: "sha256:aa", target: "press-1", endpoint: "tcp://127.0.0.1:15020",
        unit: 1,
        options: ReplayOptions(dryRun: true), status: .planned, warnings: [], identity: [], beforeWrite: [], afterWrite: [],
        registers: [
            RegisterResult(
                registerId: "heating.mode", address: 100, length: 1, status: .unchanged, expected: .unsigned(2),
                expectedData: "0002",
                actual: .unsigned(2), actualData: "0002", before: .unsigned(2)),
            RegisterResult(
                registerId: "heating.setpoint", address: 101, length: 1, status: .differs, expected: .signed(-150),
                expectedData: "FF6A", actual: .signed(35), actualData: "0023", before: .signed(35)),
        ],
        plan: [PlannedRequest(function: .fc06, address: 101, count: 1, registerIds: ["heating.setpoint"])], fellBackToFC06: false,
        requests: 1, writeFrames: 0)

    /// A replay refused on identity.
    static let refused = ReplayReport(
        pageId: "heating", templateVersion: 3, pageHash: "sha256:aa", target: "tcp://127.0.0.1:15099",
        endpoint: "tcp://127.0.0.1:15099",
        unit: 4, options: ReplayOptions(), status: .refused, reason: "identity does not match: model", warnings: [],
        identity: [IdentityCheck(registerId: "model", expected: .text("AB"), actual: .text("XY"), matches: false)],
        beforeWrite: [], afterWrite: [], registers: [], plan: [], fellBackToFC06: false, requests: 1, writeFrames: 0)

    static let captureArchived = CaptureReport(
        pageId: "heating", device: "press-1", archived: true, version: 4, pageHash: "sha256:aa", entryCount: 3,
        skipped: [SkippedRegister(registerId: "comm.unit", address: 200, reason: .notCloned)], requests: 2)

    static let captureInvalid = CaptureReport(
        pageId: "heating", device: "press-1", archived: false, pageHash: "sha256:aa",
        problems: [
            CaptureProblem(
                registerId: "heating.setpoint", address: 101, valueData: "03B6", value: .signed(950), rule: "above max 900"),
            CaptureProblem(registerId: "heating.label", address: 110, valueData: nil, value: nil, rule: "read failed: timeout"),
        ], requests: 2)

    /// A job in its running and finished states.
    static func job(
        _ id: String = "j1", kind: JobKind = .apply, device: String = "press-2", progress: JobProgress? = nil,
        finished: Bool = false,
        capture: CaptureReport? = nil, replay: ReplayReport? = nil, error: String? = nil
    ) -> JobInfo {
        JobInfo(
            id: id, kind: kind, pageId: "heating", device: device, who: "uid:1000", state: finished ? .finished : .running,
            progress: progress, startedAt: t0, finishedAt: finished ? t1 : nil, capture: capture, replay: replay, error: error)
    }
}
