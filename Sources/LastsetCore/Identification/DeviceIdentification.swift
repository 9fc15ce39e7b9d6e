import LastsetFormats

/// What a device told about itself through FC43/14 (Read Device Identification): its conformity level and every
/// object it streamed, in id order.
public struct DeviceIdentification: Sendable, Hashable {
    /// What the device says it supports.
    public var conformity: ConformityLevel
    /// Every object read, in increasing id order (each once).
    public var objects: [IdentificationObject]

    /// Sets every field.
    public init(conformity: ConformityLevel, objects: [IdentificationObject]) {
        self.conformity = conformity
        self.objects = objects
    }

    /// The object `id`, nil when the device did not answer it.
    public func object(_ id: IdentificationObjectId) -> IdentificationObject? { objects.first { $0.id == id } }

    /// VendorName as shown (text, or hex).
    public var vendorName: String? { object(.vendorName)?.shown }
    /// ProductCode as shown.
    public var productCode: String? { object(.productCode)?.shown }
    /// MajorMinorRevision as shown.
    public var majorMinorRevision: String? { object(.majorMinorRevision)?.shown }

    /// Regular objects (0x03–0x7F).
    public var regularObjects: [IdentificationObject] { objects.filter { $0.id.category == .regular } }
    /// Extended (private) objects (0x80–0xFF).
    public var extendedObjects: [IdentificationObject] { objects.filter { $0.id.category == .extended } }
}

extension DeviceIdentification: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = DeviceIdentification(conformity: .placeholder, objects: [])

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("conformity", &r.conformity)
        try f.field("objects", &r.objects)
    }
}
