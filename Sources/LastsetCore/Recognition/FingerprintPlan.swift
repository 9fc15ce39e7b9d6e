/// What one fingerprint read of a configured device asks for, and how its answers make a `MachineFingerprint`: the
/// model parts are the identity of the device's pages (registers, FC43 objects without a pattern; an object with a
/// `match` is an accepted-revision check), the instance parts its `serialNumber` entries. Pure (`FingerprintPlanTests`).
public struct FingerprintPlan: Sendable, Hashable {
    /// Identity registers of the device's pages (one per register id, first declaration kept).
    public let modelRegisters: [IdentityRegister]
    /// FC43 objects of the device's pages.
    public let modelObjects: [IdentityObject]
    /// The device's serial number registers.
    public let instanceRegisters: [IdentityRegister]
    /// The device's serial number FC43 objects.
    public let instanceObjects: [IdentityObject]

    /// The plan of `device` with its compiled `pages`.
    public init(device: CompiledDevice, pages: [CompiledPage]) {
        var seen = Set<String>()
        var seenObjects = Set<IdentityObject>()
        self.init(
            modelRegisters: pages.flatMap(\.identity).filter { seen.insert($0.registerId).inserted },
            modelObjects: pages.flatMap(\.identityObjects).filter { seenObjects.insert($0).inserted },
            instanceRegisters: device.config.serialNumber ?? [], instanceObjects: device.config.serialNumberObjects ?? [])
    }

    /// Sets every field.
    public init(
        modelRegisters: [IdentityRegister], modelObjects: [IdentityObject], instanceRegisters: [IdentityRegister],
        instanceObjects: [IdentityObject]
    ) {
        self.modelRegisters = modelRegisters
        self.modelObjects = modelObjects
        self.instanceRegisters = instanceRegisters
        self.instanceObjects = instanceObjects
    }

    /// Whether the plan reads anything that tells the model (without it, nothing can be told apart).
    public var hasModel: Bool { !modelRegisters.isEmpty || !modelObjects.isEmpty }

    /// The register spans to read (one request when they lie within the device's read limit).
    public var spans: [AddressSpan] {
        (modelRegisters + instanceRegisters).map { AddressSpan(address: $0.address, length: $0.type.registerCount) }
    }

    /// The FC43 category to read up to; nil when no object is named (no FC43 request).
    public var identificationCategory: IdentificationCategory? {
        (modelObjects + instanceObjects).map(\.object.category).max()
    }

    /// The names of the parts, in a stable order: a known fingerprint recorded under other parts (the config's
    /// identity changed) is not compared with one read under these.
    public var parts: [String] {
        (modelRegisters.map(\.registerId) + modelObjects.map(\.recordedId)).sorted().map { "model:" + $0 }
            + (instanceRegisters.map(\.registerId) + instanceObjects.map(\.recordedId)).sorted().map { "instance:" + $0 }
    }

    /// The fingerprint from what was read: `words` gives a span's words (nil: not read), `identification` the FC43
    /// answer (nil: not read, or not asked for). Nil when anything the plan needs was not read (`unreadable`); an
    /// object the device does not have is left out of its part (so it differs from one that had it).
    public func fingerprint(words: (AddressSpan) -> [UInt16]?, identification: DeviceIdentification?)
        -> MachineFingerprint?
    {
        func registers(_ list: [IdentityRegister]) -> [String: String]? {
            var out: [String: String] = [:]
            for r in list {
                guard let w = words(AddressSpan(address: r.address, length: r.type.registerCount)) else { return nil }
                out[r.registerId] = w.hexString
            }
            return out
        }
        guard var model = registers(modelRegisters), var instance = registers(instanceRegisters) else { return nil }
        if identificationCategory != nil && identification == nil { return nil }
        var refused = Set<String>()
        for o in modelObjects {
            let found = identification?.object(o.object)
            if o.match != nil {
                if !o.check(recorded: nil, actual: found).matches { refused.insert(o.recordedId) }
            } else if let found {
                model[o.recordedId] = found.hex
            }
        }
        for o in instanceObjects {
            if let found = identification?.object(o.object) { instance[o.recordedId] = found.hex }
        }
        return MachineFingerprint(model: model, instance: instance, refusedRevisions: refused)
    }
}
