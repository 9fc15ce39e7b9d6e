import LastsetCore
import LastsetEngine

/// What a job on a configured device is accepted with, all from one generation of the compiled config:
/// the device, its pages (compiled with the device's conventions), and its target — resolved machine,
/// connection and lock. A reload while the job runs changes none of it (docs/ARCHITECTURE.md, "A job runs
/// on one snapshot").
struct JobSnapshot: Sendable {
    /// The config generation the job was accepted under.
    let config: CompiledConfig
    /// The configured device.
    let device: CompiledDevice
    /// Machine, connection and lock of the device in that generation.
    let target: DeviceTarget

    /// A page of the device, compiled with its conventions; nil when that generation has no such page.
    func page(_ id: String) -> CompiledPage? { config.page(id, on: device.id) }
}
