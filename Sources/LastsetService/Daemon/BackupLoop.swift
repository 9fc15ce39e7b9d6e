import Foundation
import LastsetCore
import LastsetEngine
import LastsetSystem

/// Scheduled backups as a service (docs/AS-FOUND.md): each configured device with a `backup` interval is read as
/// found when `BackupSchedule` says it is due — as the config says at that moment: a reload adds, changes or stops a
/// schedule — as a job of kind `backup` by `policy:backup` holding the device. A device busy with another job or a
/// poll is tried again shortly; a device that cannot be read is recorded once per failing streak (`BackupStreak`:
/// an audit record and a warning), not at every attempt. The jobs run in the job table (drained with the jobs at a
/// stop); this loop only starts them.
struct BackupLoop: Service {
    let name = "scheduled backups"
    let registry: DeviceRegistry
    let deviceJobs: DeviceJobs
    let log: Logger
    /// Who the audit log names for a scheduled backup.
    static let who = "policy:backup"
    /// How often the schedule is looked at (a reload's change is seen within it).
    static let tick: Duration = .seconds(1)

    func run() async {
        let book = Book(started: Date())
        do {
            await book.load(try deviceJobs.engine.asFound.attempts())
        } catch {
            log.error("scheduled backups: cannot read the last attempts, so every device is due as if never backed up: \(error)")
        }
        await ServiceGroup.runUntilStopped {
            while !Task.isCancelled {
                let now = Date()
                for device in await book.due(await registry.config.devices, at: now) {
                    await start(device, book: book, at: now)
                }
                try? await Task.sleep(for: Self.tick)
            }
        }
    }

    /// Starts one device's backup, or leaves it to be tried again when the machine is busy.
    private func start(_ device: CompiledDevice, book: Book, at now: Date) async {
        guard let snapshot = await registry.snapshot(device: device.id), let interval = device.backupInterval else { return }
        await book.started(device.id)
        do {
            _ = try await deviceJobs.backUp(snapshot, who: Self.who, wait: false) { report in
                await self.finished(report, snapshot: snapshot, book: book, at: now)
            }
        } catch {
            await book.refused(device.id, at: now, interval: interval)
            if error is JobRefusal {
                log.debug("scheduled backup of \(device.id) waits: \(error)")
            } else {
                log.error("scheduled backup of \(device.id) cannot start: \(error)")
            }
        }
    }

    /// Records the attempt (and the start of a failing streak, in the same commit), and logs what it found.
    private func finished(_ report: AsFoundReport, snapshot: JobSnapshot, book: Book, at time: Date) async {
        let device = snapshot.device.id
        let failure = report.failure
        let streak = BackupStreak.of(previous: await book.finished(device, at: time, failure: failure), now: failure)
        var audit: AuditRecord?
        if case .began(let why) = streak {
            let page = report.pages.first { $0.outcome == .failed }?.pageId ?? ""
            var record = deviceJobs.engine.auditBase(
                device: device, pageId: page, target: snapshot.target, who: Self.who, job: UUID().uuidString,
                pageHash: snapshot.config.page(page, on: device)?.hash ?? "")
            record.message = "scheduled backup failed: \(why) (recorded once until a backup of \(device) succeeds again)"
            audit = record
        }
        do {
            try await deviceJobs.engine.asFound.attempted(device: device, at: time, failure: failure, audit: audit)
        } catch {
            log.error("scheduled backup of \(device): cannot record the attempt: \(error)")
        }
        switch streak {
        case .began(let why): log.warning("scheduled backup of \(device) failed: \(why)")
        case .ended(let why): log.info("scheduled backup of \(device) succeeds again (it had failed: \(why))")
        case .none: break
        }
        for page in report.pages where page.outcome == .changed {
            log.info("as found on \(device), page \(page.pageId) (record \(page.number ?? 0)): \(page.summary ?? "")")
        }
    }

    /// Each device's last attempt, its failure, and when a busy device is tried again.
    actor Book {
        let started: Date
        private var last: [String: (at: Date, failure: String?)] = [:]
        private var retryAt: [String: Date] = [:]
        private var running: Set<String> = []

        init(started: Date) { self.started = started }

        func load(_ attempts: [String: (at: Date, failure: String?)]) { last = attempts }

        /// The devices whose backup is due at `now` and not running.
        func due(_ devices: [CompiledDevice], at now: Date) -> [CompiledDevice] {
            devices.filter { device in
                guard let interval = device.backupInterval, !running.contains(device.id) else { return false }
                let due =
                    retryAt[device.id]
                    ?? BackupSchedule.due(
                        device: device.id, interval: interval, lastAttempt: last[device.id]?.at, started: started)
                return due <= now
            }
        }

        func started(_ device: String) {
            running.insert(device)
            retryAt[device] = nil
        }

        func refused(_ device: String, at time: Date, interval: Duration) {
            running.remove(device)
            retryAt[device] = BackupSchedule.retryAfterBusy(at: time, interval: interval)
        }

        /// Records the attempt's end; returns the previous attempt's failure.
        func finished(_ device: String, at time: Date, failure: String?) -> String? {
            running.remove(device)
            let previous = last[device]?.failure
            last[device] = (time, failure)
            return previous
        }
    }
}
