/// `GET /v1/identify`: what a device said about itself through FC43/14 (Read Device Identification).
public struct IdentifyReport: Codable, Sendable, Hashable {
    /// The configured device id, when the target is (or resolves to) one.
    public var device: String?
    /// The endpoint read.
    public var endpoint: String
    /// The unit id read.
    public var unit: Int
    /// What the device says it supports.
    public var conformity: ConformityLevel
    /// Every object it answered, in id order.
    public var objects: [IdentificationObject]
    /// Frames sent (retries included).
    public var requests: Int

    /// Sets every field.
    public init(
        device: String?, endpoint: String, unit: Int, conformity: ConformityLevel, objects: [IdentificationObject], requests: Int
    ) {
        self.device = device
        self.endpoint = endpoint
        self.unit = unit
        self.conformity = conformity
        self.objects = objects
        self.requests = requests
    }

    /// The identification as read.
    public var identification: DeviceIdentification { DeviceIdentification(conformity: conformity, objects: objects) }
}
