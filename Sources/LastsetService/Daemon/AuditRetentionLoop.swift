import LastsetCore
import LastsetEngine
import LastsetSystem

/// Audit retention as a service: at start, then every `audit.interval` (as the config says at that moment), off any
/// job's path. Stopped, it lets a run in progress finish (its files and removal are one unit).
struct AuditRetentionLoop: Service {
    let name = "audit retention"
    let retention: AuditRetention
    let registry: DeviceRegistry
    let log: Logger

    /// Runs retention by the current policy until stopped.
    func run() async {
        let (retention, registry, log) = (self.retention, self.registry, self.log)
        await ServiceGroup.runUntilStopped {
            while !Task.isCancelled {
                let policy = await registry.config.source.audit
                if let policy, policy.prunes {
                    await Self.runOnce(retention, policy, log: log)
                }
                try? await Task.sleep(for: policy?.intervalDuration ?? AuditConfig.defaultInterval)
            }
        }
    }

    /// One run of audit retention, its effect logged (each file, each redone file; a failure as an error).
    static func runOnce(_ retention: AuditRetention, _ policy: AuditConfig, log: Logger) async {
        do {
            let report = try await retention.run(policy)
            for name in report.partialsRemoved {
                log.warning(
                    "audit retention: removed \(AuditRetention.directoryName)/\(name), left by a run stopped while writing it")
            }
            for name in report.redone {
                log.warning(
                    "audit retention: \(AuditRetention.directoryName)/\(name) was written by a run whose removal never committed (its records are all still in \(RecordStore.fileName)): removed, its records exported again"
                )
            }
            for f in report.files {
                log.info(
                    "audit retention: exported \(f.records) record\(f.records == 1 ? "" : "s") to \(retention.directory)/\(f.name) (\(f.bytes) bytes), then removed them from \(RecordStore.fileName)"
                )
            }
            if report.files.isEmpty { log.debug("audit retention: no record past the bound") }
        } catch {
            log.error("audit retention failed, no record was removed that is not in a file of \(retention.directory): \(error)")
        }
    }
}
