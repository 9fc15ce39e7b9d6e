import LastsetFormats

/// The hash a change request is filed with, an approval signs and an apply must reproduce from a fresh dry run
/// (docs/CHANGE-CONTROL.md): SHA-256 of a canonical JSON of the target's identity (device, endpoint, unit, the
/// identity values it answered), the page and its hash, the template version, every register's as-found words
/// and the words it would get (the effective values), and the write requests planned. Anything that changes
/// one of them — a panel change on the machine, a new master, an override, a learned write limit — changes it.
public enum ChangeHash {
    /// One register of the plan.
    public struct Register: Sendable, Hashable {
        public var registerId: String
        public var address: Int
        /// The words it would be written (hex, upper case).
        public var expectedData: String
        /// The words it held when read (hex, upper case; nil: not read).
        public var asFoundData: String?

        /// Sets every field.
        public init(registerId: String, address: Int, expectedData: String, asFoundData: String?) {
            self.registerId = registerId
            self.address = address
            self.expectedData = expectedData
            self.asFoundData = asFoundData
        }
    }

    /// What the hash covers.
    public struct Subject: Sendable {
        public var device: String
        public var endpoint: String
        public var unit: Int
        public var pageId: String
        public var pageHash: String
        public var versionId: String
        /// registerId (or `fc43:Name`) → the value the target answered (its text; nil: not read).
        public var identity: [(String, String?)]
        public var registers: [Register]
        public var plan: [PlannedRequest]

        /// Sets every field.
        public init(
            device: String, endpoint: String, unit: Int, pageId: String, pageHash: String, versionId: String,
            identity: [(String, String?)], registers: [Register], plan: [PlannedRequest]
        ) {
            self.device = device
            self.endpoint = endpoint
            self.unit = unit
            self.pageId = pageId
            self.pageHash = pageHash
            self.versionId = versionId
            self.identity = identity
            self.registers = registers
            self.plan = plan
        }
    }

    /// `sha256:` and 64 hex digits.
    public static func of(_ s: Subject) -> String {
        var w = JSONWriter(capacity: 256 + s.registers.count * 64)
        w.beginObject()
        w.field("device", s.device)
        w.field("endpoint", s.endpoint)
        w.key("identity")
        w.beginArray()
        for (id, value) in s.identity {
            w.beginArray()
            w.string(id)
            if let value { w.string(value) } else { w.null() }
            w.endArray()
        }
        w.endArray()
        w.field("pageHash", s.pageHash)
        w.field("pageId", s.pageId)
        w.key("plan")
        w.beginArray()
        for p in s.plan {
            w.beginArray()
            w.string(p.function.rawValue)
            w.int(p.address)
            w.int(p.count)
            w.endArray()
        }
        w.endArray()
        w.key("registers")
        w.beginArray()
        for r in s.registers {
            w.beginArray()
            w.string(r.registerId)
            w.int(r.address)
            w.string(r.expectedData.uppercased())
            if let found = r.asFoundData { w.string(found.uppercased()) } else { w.null() }
            w.endArray()
        }
        w.endArray()
        w.field("unit", s.unit)
        w.field("versionId", s.versionId)
        w.endObject()
        return "sha256:" + SHA256.hex(w.bytes)
    }
}
