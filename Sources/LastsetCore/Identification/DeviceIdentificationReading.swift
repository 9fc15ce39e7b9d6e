/// Reading a device's whole identification, one FC43/14 request at a time: the basic stream first (every
/// device with FC43 has it, and its answer says the conformity level), then — when the device conforms to more —
/// the regular or extended stream from object 0x03, following "more follows" until the device says it is done.
/// Pure: the caller sends `request`, hands the parsed answer to `take`, and stops when `request` is nil.
///
/// It always ends: within a stream every answer must move the next object id past its own objects
/// (`DeviceIdentificationAnswer.parse`), so a stream takes at most 256 requests, and there are at most two.
public struct DeviceIdentificationReading: Sendable {
    /// A request to send: stream `category` from `objectId`.
    public struct Request: Sendable, Hashable {
        /// The category to stream.
        public var category: IdentificationCategory
        /// The first object asked for.
        public var objectId: UInt8
        /// A request for `category` from `objectId`.
        public init(category: IdentificationCategory, objectId: UInt8) {
            self.category = category
            self.objectId = objectId
        }
        /// The request PDU.
        public var pdu: [UInt8] { DeviceIdentificationAnswer.request(category, from: objectId) }
    }

    /// The next request to send, nil when the identification is complete.
    public private(set) var request: Request?
    /// The highest category read (`extended` reads everything the device has).
    public let upTo: IdentificationCategory
    private var conformity: ConformityLevel?
    private var objects: [IdentificationObjectId: IdentificationObject] = [:]
    /// Answers taken so far.
    public private(set) var answers = 0

    /// A reading of every category up to `upTo`, starting with the basic stream from object 0.
    public init(upTo: IdentificationCategory = .extended) {
        self.upTo = upTo
        request = Request(category: .basic, objectId: 0)
    }

    /// Takes the answer to `request` (parse it with `DeviceIdentificationAnswer.parse(_:asked: request.category)`):
    /// keeps its objects and decides the next request. An object answered twice with two values, or a
    /// conformity level that changes between answers, is refused.
    public mutating func take(_ answer: DeviceIdentificationAnswer) throws(IdentificationError) {
        guard let asked = request else { return }
        answers += 1
        if let conformity, conformity != answer.conformity {
            throw IdentificationError(
                .inconsistent, "the conformity level changed between answers (\(conformity) → \(answer.conformity))")
        }
        conformity = answer.conformity
        for object in answer.objects {
            // A device restarts at object 0 when the object asked for does not exist: the same object again is
            // expected, another value for it is not.
            if let seen = objects[object.id], seen.value != object.value {
                throw IdentificationError(
                    .inconsistent, "object \(object.id) was answered as \"\(seen.shown)\" and then as \"\(object.shown)\"")
            }
            objects[object.id] = object
        }
        if let next = answer.next {
            request = Request(category: asked.category, objectId: next)
            return
        }
        let wanted = min(upTo, answer.conformity.category)
        request = asked.category < wanted ? Request(category: wanted, objectId: 0x03) : nil
    }

    /// The identification read, once `request` is nil (nil before).
    public var result: DeviceIdentification? {
        guard request == nil, let conformity else { return nil }
        return DeviceIdentification(conformity: conformity, objects: objects.values.sorted { $0.id < $1.id })
    }
}
