import Foundation
import LastsetCore
import LastsetEngine
import LastsetFleet
import LastsetSystem

/// The audit chain's check at start, as a service: the whole log verified once, off the start-up path (a year of
/// records takes a while to hash), then nothing until the stop. A break nobody acknowledged is logged as an error
/// and marks the chain broken: from then on every job that would record something is refused, nothing written,
/// until an administrator acknowledges it (`lastset audit acknowledge`). Until the check ends, appends are still
/// checked against the head the daemon wrote last (a removed end of the log is refused at once).
struct AuditChainCheck: Service {
    let name = "audit chain check"
    let audit: AuditLog
    /// In a fleet, the heads this host published are checked too.
    let fleet: Fleet?
    let log: Logger

    func run() async throws {
        let started = ContinuousClock.now
        do {
            let report = try await audit.verifyChain(published: await fleet?.publishedAuditHeads() ?? [])
            let took = ContinuousClock.now - started
            if report.intact {
                log.info(
                    "audit chain intact: \(report.records) record\(report.records == 1 ? "" : "s") checked in \(took)"
                        + (report.acknowledged.isEmpty ? "" : " (\(report.acknowledged.count) acknowledged break\(report.acknowledged.count == 1 ? "" : "s") before them)"))
            } else {
                log.error(
                    "audit chain broken: "
                        + report.findings.prefix(20).map(\.description).joined(separator: "; ")
                        + (report.findings.count > 20 ? "; and \(report.findings.count - 20) more" : "")
                        + ". Nothing is written until an administrator checks it (lastset audit verify) and acknowledges it (lastset audit acknowledge --reason TEXT)"
                )
            }
        } catch {
            log.error("audit chain check failed: \(error)")
        }
        await ServiceGroup.untilStopped()
    }
}
