import LastsetCore
import LastsetEngine
import ModbusLink

/// Runs the work that talks to a device — capture, apply, a whole-machine apply, an identity read — each holding
/// the device for its length (one job per device: `DeviceRegistry.acquire`), entered in the job table, and
/// recording the device's health from its report (`DeviceContact`).
struct DeviceJobs: Sendable {
    let registry: DeviceRegistry
    let jobs: JobTable
    let engine: Engine

    /// Captures `page` from the snapshot's device; `archived` hears the id of the version it archived (the fleet
    /// commits it).
    func capture(
        page: CompiledPage, on snapshot: JobSnapshot, who: String, wait: Bool,
        archived: @escaping @Sendable (_ versionId: String) -> Void
    ) async throws -> JobInfo {
        let (engine, registry, device) = (engine, registry, snapshot.device)
        return try await run(.capture, pageId: page.id, on: snapshot.target, who: who, wait: wait) { progress in
            let report = await engine.capture(page: page, from: snapshot.target, who: who, progress: progress)
            if report.archived, let id = report.versionId { archived(id) }
            await registry.record(DeviceContact(capture: report), device: device.id)
            return JobOutcome(capture: report)
        }
    }

    /// Replays `template` (loaded and pinned by the caller) to `target`; `warning` goes into the report (the
    /// fleet's, when the hub could not be asked first).
    func apply(
        page: CompiledPage, template: Template, to target: DeviceTarget, options: ReplayOptions, warning: String?,
        who: String, wait: Bool, signature: WriteSignature? = nil
    ) async throws -> JobInfo {
        let (engine, registry) = (engine, registry)
        return try await run(.apply, pageId: page.id, on: target, who: who, wait: wait) { progress in
            var report = await engine.apply(
                page: page, template: template, to: target, options: options, who: who, progress: progress,
                signature: signature)
            if let warning { report.warnings.append(warning) }
            if let deviceId = target.deviceId { await registry.record(DeviceContact(replay: report), device: deviceId) }
            return JobOutcome(replay: report)
        }
    }

    /// Every page of a configured device in one job holding it (`Engine.applyAll`).
    func applyAll(
        _ pages: [ApplyAllPage], on snapshot: JobSnapshot, options: ReplayOptions, policy: PageFailurePolicy, who: String,
        wait: Bool, signature: WriteSignature? = nil
    ) async throws -> JobInfo {
        let (engine, registry, device, target) = (engine, registry, snapshot.device, snapshot.target)
        let pageIds = device.pageIds.joined(separator: ",")
        return try await run(.applyAll, pageId: pageIds, on: target, who: who, wait: wait) { progress in
            let report = await engine.applyAll(
                device: device.id, pages: pages, to: target, options: options, policy: policy, who: who,
                signature: signature, progress: progress
            ) { report in
                await registry.record(DeviceContact(replay: report), device: device.id)
            }
            return JobOutcome(applyAll: report)
        }
    }

    /// The page's identity values as the device holds them now, read while holding the device (an import of an
    /// archive that holds none).
    func readIdentity(of page: CompiledPage, from target: DeviceTarget) async throws -> [RecordedValue] {
        let engine = self.engine
        switch try await holding(target, for: .identityRead, { await engine.readIdentity(of: page, from: target) }) {
        case .success(let values): return values
        case .failure(let error): throw JobRefusal.identityUnread(error)
        }
    }

    /// The device's FC43/14 identification (every category up to extended), read while holding it; the frames sent.
    func identify(_ target: DeviceTarget) async throws -> (result: Result<DeviceIdentification, ModbusError>, requests: Int) {
        try await holding(target, for: .identityRead) { await IdentificationReader.read(upTo: .extended, from: target) }
    }

    /// `read` run while holding the target (refused as `hold` refuses), the target released when it ends.
    private func holding<T: Sendable>(
        _ target: DeviceTarget, for kind: JobKind, _ read: @Sendable () async -> T
    ) async throws -> T {
        try await hold(target, for: kind)
        let result = await read()
        await registry.release(target.lock)
        return result
    }

    /// Holds the target for a job of `kind` (release it with `registry.release(target.lock)`); refused while
    /// another job or a poll holds it, or when its serial line may not be used with the settings the target asks
    /// for (`LineAccess`). Either way nothing has been sent.
    private func hold(_ target: DeviceTarget, for kind: JobKind) async throws(JobRefusal) {
        try Self.held(await registry.acquire(target, for: kind), label: target.label)
    }

    /// Nothing when `acquisition` holds the target (named `label` in the refusal); the refusal otherwise.
    static func held(_ acquisition: DeviceRegistry.Acquisition, label: String) throws(JobRefusal) {
        switch acquisition {
        case .held: return
        case .busy(let holder): throw .busy(target: label, holder: holder)
        case .pollInProgress: throw .polling(target: label)
        case .refused(let refusal): throw .lineSettings(refusal)
        }
    }

    /// Holds the target, starts the job, releases the target when the job ends. Returns the running job, or the
    /// finished one when `wait`. `pageId` names the page (a whole-machine apply: every page, comma-separated).
    func run(
        _ kind: JobKind, pageId: String, on target: DeviceTarget, who: String, wait: Bool,
        work: @escaping @Sendable (@escaping ProgressHandler) async -> JobOutcome
    ) async throws -> JobInfo {
        let key = target.lock
        try await hold(target, for: kind)
        let (jobs, registry) = (jobs, registry)
        let job = await jobs.start(JobInfo(id: "", kind: kind, pageId: pageId, device: target.label, who: who)) { id in
            let relay = ProgressRelay { p in await jobs.update(id, progress: p) }
            let progress: ProgressHandler = { p in relay.post(p) }
            let outcome = await work(progress)
            await registry.release(key)
            return outcome
        }
        guard wait else { return job }
        guard let finished = await jobs.wait(job.id) else { throw JobRefusal.vanished(jobId: job.id) }
        return finished
    }
}
