import Foundation
import LastsetCore
import LastsetEngine

/// The machine behind each configured device with a `replacement` policy, checked at every poll (issue 23, part 3;
/// docs/REPLACEMENT.md): the poll reads its fingerprint first (`FingerprintReader`, one request when the identity
/// and serial number registers lie within the read limit), then its pages; after the poll this classifies it
/// (`ReconnectClassifier`), decides (`MachineRecognition`), records the decision, logs what it found, and starts a
/// restore when one is due.
struct MachineWatch: Sendable {
    let machines: MachineRecordStore
    let deviceState: DeviceStateStore
    let deviceJobs: DeviceJobs
    let log: Logger
    /// Hears each finding and resolution (`GET /v1/events`; nil: none).
    var events: EventHub? = nil

    /// The pages' standing and the classifier's readings, from the pages' live values of one poll (`live`: page id →
    /// values; a page not read is absent). Marked pages are left out of the readings (what they hold is not known).
    func standing(device: String, pages: [CompiledPage], live: [String: [LiveValue]]) async -> (
        [PageStanding], [AppliedPageReading]
    ) {
        var standing: [PageStanding] = []
        var readings: [AppliedPageReading] = []
        for page in pages {
            let state = await deviceState.state(device: device, pageId: page.id)
            // The version a restore would write: the one decision (`RestoreVersion`), the console's restore's too.
            let restorable = RestoreVersion.choose(pageId: page.id, device: device, state: state, latest: nil)
            var entry = PageStanding(
                pageId: page.id, versionId: restorable.versionId, appliedAt: state?.applied?.appliedAt,
                marked: state?.unverified != nil)
            if let applied = state?.applied {
                let reading = AppliedPageReading(page: page, applied: applied, live: live[page.id] ?? [])
                entry.setElsewhere = reading.setElsewhere
                if !entry.marked { readings.append(reading) }
            }
            standing.append(entry)
        }
        return (standing, readings)
    }

    /// The verdict on what one poll read, against the device's record (a record kept under other parts is not used).
    func verdict(
        device: String, plan: FingerprintPlan, fingerprint: MachineFingerprint?, readings: [AppliedPageReading]
    ) async -> MachineVerdict {
        let record = await machines.record(device: device)
        let known = record.parts == plan.parts ? record.known : nil
        return ReconnectClassifier.classify(known: known, now: fingerprint, pages: readings)
    }

    /// After a poll of `device` (the poll has ended: a restore may take the machine): decides, records, logs, and
    /// starts the restore that is due.
    func afterPoll(
        device: CompiledDevice, config: CompiledConfig, target: DeviceTarget, plan: FingerprintPlan,
        fingerprint: MachineFingerprint?, live: [String: [LiveValue]]
    ) async {
        let pages = config.pages(of: device)
        let (standing, readings) = await standing(device: device.id, pages: pages, live: live)
        var record = await machines.record(device: device.id)
        if record.parts != plan.parts { record = MachineRecord() }
        let verdict = ReconnectClassifier.classify(known: record.known, now: fingerprint, pages: readings)
        let (next, action) = MachineRecognition.next(
            record: record, parts: plan.parts, now: fingerprint, verdict: verdict, policy: device.replacement,
            pages: standing, at: Date())
        // A restore still pending (another job held the machine) is tried again though nothing else changed.
        if case .restore(let event) = action, next == record {
            await restore(event, device: device, config: config, target: target, record: next)
            return
        }
        guard next != record else { return }
        do {
            try await machines.save(next, device: device.id)
        } catch {
            log.error("machine \(device.id): cannot record \(action): \(error)")
            return
        }
        report(action, device: device.id)
        if let event = ServerEvent.of(action, device: device.id) { events?.publish(event) }
        if case .restore(let event) = action {
            await restore(event, device: device, config: config, target: target, record: next)
        }
    }

    /// The log line of an action.
    private func report(_ action: MachineRecognition.Action, device: String) {
        switch action {
        case .none: break
        case .recorded: log.info("machine \(device): fingerprint recorded")
        case .noticed(let e), .restore(let e):
            if e.kind == .changedElsewhere {
                log.info("machine \(device): \(e.summary)")
            } else {
                log.warning("machine \(device): \(e.summary)")
            }
        case .updated(let e): log.info("machine \(device): \(e.summary)")
        case .resolved(let e, let adopted):
            log.info(
                "machine \(device): \(e.kind.rawValue) resolved\(adopted ? "; this machine is the device's from now on" : "")")
        }
    }

    /// Starts the restore of `event`: its record says `started` before the job may send anything (never twice for one
    /// finding, even across a restart); a machine held by another job leaves it pending for the next poll. A protected
    /// page (docs/CHANGE-CONTROL.md) is never restored by itself: it waits for an approved change request.
    private func restore(
        _ event: MachineEvent, device: CompiledDevice, config: CompiledConfig, target: DeviceTarget, record: MachineRecord
    ) async {
        var pages: [CompiledPage] = []
        var leftProtected = false
        for pageId in event.restorePages {
            guard let page = config.page(pageId, on: device.id) else { continue }
            if let why = ChangeControl.protection(of: page, config.source.changeControl) {
                log.warning("machine \(device.id): \(why): not restored automatically; it needs an approved change request")
                leftProtected = true
                continue
            }
            pages.append(page)
        }
        // Each page's last verified version (`RestoreVersion`, as the console's restore), loaded before the job.
        let loaded = await deviceJobs.engine.lastVerifiedTemplates(of: pages, device: device.id)
            .filter { $0.template != nil }
        if loaded.isEmpty && leftProtected { return }
        do {
            try await machines.save(MachineRecognition.started(record, job: ""), device: device.id)
            let job = try await deviceJobs.restore(
                loaded, device: device, on: target,
                recheck: { target in
                    await self.recheck(event, device: device, pages: config.pages(of: device), target: target)
                },
                finished: { report in self.restored(report, device: device.id) })
            try await machines.save(MachineRecognition.started(record, job: job.id), device: device.id)
            log.warning("machine \(device.id): restore job \(job.id) started (\(event.restorePages.joined(separator: ", ")))")
        } catch let refusal as JobRefusal {
            try? await machines.save(record, device: device.id)
            log.info("machine \(device.id): restore waits: \(refusal)")
        } catch {
            log.error("machine \(device.id): cannot start the restore: \(error)")
        }
    }

    /// The log line of a restore's end.
    private func restored(_ report: ApplyAllReport, device: String) {
        let pages = report.pages.map { "\($0.pageId) \($0.status.rawValue)" + ($0.error.map { ": \($0)" } ?? "") }
        if report.succeeded {
            log.info("machine \(device): restored (\(pages.joined(separator: "; ")))")
        } else {
            log.warning("machine \(device): restore did not succeed (\(pages.joined(separator: "; ")))")
        }
    }

    /// Reads the machine again holding it (one fingerprint read and its pages) and says why the restore must not run.
    func recheck(_ event: MachineEvent, device: CompiledDevice, pages: [CompiledPage], target: DeviceTarget) async
        -> String?
    {
        let plan = FingerprintPlan(device: device, pages: pages)
        let read = await FingerprintReader.read(plan, from: target)
        var live: [String: [LiveValue]] = [:]
        for page in pages { live[page.id] = await LiveReader.read(page: page, from: target).values }
        let (standing, readings) = await standing(device: device.id, pages: pages, live: live)
        let verdict = await verdict(device: device.id, plan: plan, fingerprint: read.fingerprint, readings: readings)
        return MachineRecognition.recheck(event, verdict: verdict, now: read.fingerprint, pages: standing)
    }
}
