/// One FC43/14 (Read Device Identification) answer, parsed strictly: every field checked against the request
/// and the specification, every object's length bounded by the bytes that are there. No input traps.
///
/// The PDU: `2B 0E code conformity moreFollows nextObjectId count { id length value… }×count`, at most 253 bytes.
public struct DeviceIdentificationAnswer: Sendable, Hashable {
    /// The category the answer streams (the request's Read Device ID code, echoed).
    public var category: IdentificationCategory
    /// What the device says it supports.
    public var conformity: ConformityLevel
    /// The next object to ask for when the objects did not fit in this answer; nil when nothing more follows.
    public var next: UInt8?
    /// The objects, in increasing id order.
    public var objects: [IdentificationObject]

    /// Sets every field.
    public init(category: IdentificationCategory, conformity: ConformityLevel, next: UInt8?, objects: [IdentificationObject]) {
        self.category = category
        self.conformity = conformity
        self.next = next
        self.objects = objects
    }

    /// The largest PDU Modbus allows.
    public static let maxPDU = 253

    /// The request PDU asking for `category`'s objects from `objectId` on.
    public static func request(_ category: IdentificationCategory, from objectId: UInt8) -> [UInt8] {
        [0x2B, 0x0E, category.rawValue, objectId]
    }

    /// Parses `pdu` (from the function code on) as the answer to a stream request for `asked`.
    public static func parse(_ pdu: [UInt8], asked: IdentificationCategory) throws(IdentificationError) -> Self {
        guard pdu.count <= maxPDU else {
            throw IdentificationError(.trailingBytes, "the answer is \(pdu.count) bytes, more than a Modbus PDU's \(maxPDU)")
        }
        if pdu.count == 2, pdu[0] == 0xAB {
            throw IdentificationError(.exception(pdu[1]), "the device answered FC43 with exception \(hex(pdu[1]))")
        }
        guard pdu.count >= 7 else {
            throw IdentificationError(.truncated, "the answer is \(pdu.count) bytes, shorter than the 7 of its header")
        }
        guard pdu[0] == 0x2B, pdu[1] == 0x0E else {
            throw IdentificationError(
                .notTheAnswer, "function \(hex(pdu[0])) MEI type \(hex(pdu[1])) is no Read Device Identification answer (2B 0E)")
        }
        guard pdu[2] == asked.rawValue else {
            throw IdentificationError(
                .notTheAnswer, "Read Device ID code \(hex(pdu[2])) answers a request for \(hex(asked.rawValue))")
        }
        guard let conformity = ConformityLevel(byte: pdu[3]) else {
            throw IdentificationError(.badField, "conformity level \(hex(pdu[3])) is none of 01, 02, 03, 81, 82, 83")
        }
        guard pdu[4] == 0x00 || pdu[4] == 0xFF else {
            throw IdentificationError(.badField, "\"more follows\" is \(hex(pdu[4])), neither 00 nor FF")
        }
        let objects = try parseObjects(pdu, count: Int(pdu[6]), asked: asked)
        var next: UInt8?
        if pdu[4] == 0xFF {
            // Reading on must make progress: the next object lies beyond every object of this answer.
            guard let last = objects.last, pdu[5] > last.id.rawValue else {
                throw IdentificationError(
                    .noProgress,
                    "more follows from object \(hex(pdu[5])), not beyond this answer's last object"
                        + (objects.last.map { " \($0.id)" } ?? " (it holds none)"))
            }
            next = pdu[5]
        }
        return Self(category: asked, conformity: conformity, next: next, objects: objects)
    }

    /// The `count` objects from offset 7: each inside the answer, of the category asked, in increasing id order,
    /// and nothing after the last.
    private static func parseObjects(_ pdu: [UInt8], count: Int, asked: IdentificationCategory) throws(IdentificationError)
        -> [IdentificationObject]
    {
        var objects: [IdentificationObject] = []
        var at = 7
        for n in 0..<count {
            guard at + 2 <= pdu.count else {
                throw IdentificationError(.truncated, "object \(n + 1) of \(count) starts past the answer's end (byte \(at))")
            }
            let id = IdentificationObjectId(rawValue: pdu[at])
            let length = Int(pdu[at + 1])
            guard at + 2 + length <= pdu.count else {
                throw IdentificationError(
                    .truncated, "object \(id) declares \(length) bytes; the answer holds \(pdu.count - at - 2) after its header")
            }
            guard id.category <= asked else {
                throw IdentificationError(.objectOrder, "object \(id) is \(id.category), not in a \(asked) answer")
            }
            if let previous = objects.last, previous.id >= id {
                throw IdentificationError(
                    .objectOrder, "object \(id) follows \(previous.id): objects must come in increasing order")
            }
            objects.append(IdentificationObject(id: id, value: Array(pdu[(at + 2)..<(at + 2 + length)])))
            at += 2 + length
        }
        guard at == pdu.count else {
            throw IdentificationError(.trailingBytes, "\(pdu.count - at) bytes follow the last of \(count) objects")
        }
        return objects
    }

    /// `0x2B`.
    static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (byte < 0x10 ? "0" : "") + digits
    }
}
