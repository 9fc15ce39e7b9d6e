import LastsetCore
import ModbusLink

/// One fingerprint read of a configured device (`FingerprintPlan`): its identity and serial number registers in as
/// few requests as the device's read limit allows (one, when they lie within it), and the FC43 objects when the
/// plan names any (one more request for basic objects).
public enum FingerprintReader {
    /// The fingerprint (nil: something it needs was not read, `error` says what), and the requests sent.
    public static func read(_ plan: FingerprintPlan, from target: DeviceTarget) async -> (
        fingerprint: MachineFingerprint?, requests: Int, error: String?
    ) {
        let readout = await PageReader.read(plan.spans, from: target)
        var requests = readout.requests
        if let failure = readout.failures.first {
            return (nil, requests, "cannot read the fingerprint at \(failure.key.address): \(failure.value)")
        }
        var identification: DeviceIdentification?
        if let category = plan.identificationCategory {
            let (result, sent) = await IdentificationReader.read(upTo: category, from: target)
            requests += sent
            switch result {
            case .success(let found): identification = found
            case .failure(let error): return (nil, requests, "cannot read the device identification: \(error)")
            }
        }
        let fingerprint = plan.fingerprint(words: { readout.words(for: $0) }, identification: identification)
        return (fingerprint, requests, fingerprint == nil ? "the fingerprint was not read whole" : nil)
    }
}
