import LastsetFormats

/// SunSpec's register map: the marker "SunS" (0x5375 0x6E53) at one of three base addresses, then a chain of
/// models, each `id, length` and `length` registers, ended by id 0xFFFF.
public struct SunSpecChain: Sendable, Hashable {
    /// The marker's two words.
    public static let marker: [UInt16] = [0x5375, 0x6E53]
    /// Where the marker may be, in the order a scan looks (40000 is the common one).
    public static let bases = [40000, 0, 50000]
    /// At most this many models are walked (a chain that does not end is cut here and says so).
    public static let maxModels = 128

    /// One model of the chain.
    public struct Model: Sendable, Hashable {
        /// The model id (1 common, 103 three-phase inverter, 123 immediate controls, …).
        public var id: Int
        /// The address of its header (`id`, `length`); its points start 2 registers later.
        public var address: Int
        /// Its length in registers, after the header.
        public var length: Int
        /// Its registers after the header, as read (nil when they could not be read): the scale factors and group
        /// counts a generated page needs.
        public var words: [UInt16]?

        /// Sets every field.
        public init(id: Int, address: Int, length: Int, words: [UInt16]? = nil) {
            self.id = id
            self.address = address
            self.length = length
            self.words = words
        }
    }

    /// The marker's address.
    public var base: Int
    /// The models found, in chain order.
    public var models: [Model]
    /// Why the walk stopped before an end marker (nil: it ended properly).
    public var cut: String?

    /// A chain at `base`, empty so far.
    public init(base: Int, models: [Model] = [], cut: String? = nil) {
        self.base = base
        self.models = models
        self.cut = cut
    }

    /// The address of the next model header to read, nil when the walk is over.
    public var next: Int? {
        guard cut == nil else { return nil }
        if let last = models.last {
            if last.id == 0xFFFF { return nil }
            return last.address + 2 + last.length
        }
        return base + 2
    }

    /// Takes the header read at `next`: a model, or the end marker (kept as id 0xFFFF, length 0). A header that
    /// would run past the address space, or a chain longer than `maxModels`, ends the walk with `cut` set.
    public mutating func take(header: [UInt16]) {
        guard let at = next, header.count == 2 else { return }
        let (id, length) = (Int(header[0]), Int(header[1]))
        if id == 0xFFFF {
            models.append(Model(id: id, address: at, length: 0))
            return
        }
        guard at + 2 + length <= 65536 else {
            cut = "model \(id) at \(at) of \(length) registers runs past address 65535"
            return
        }
        guard models.count < Self.maxModels else {
            cut = "more than \(Self.maxModels) models"
            return
        }
        models.append(Model(id: id, address: at, length: length))
    }

    /// The models, without the end marker.
    public var realModels: [Model] { models.filter { $0.id != 0xFFFF } }
}

extension SunSpecChain: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = SunSpecChain(base: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("base", &r.base)
        try f.field("cut", &r.cut)
        try f.field("models", &r.models)
    }
}

extension SunSpecChain.Model: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = SunSpecChain.Model(id: 0, address: 0, length: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("address", &r.address)
        try f.field("id", &r.id)
        try f.field("length", &r.length)
        try f.field("words", &r.words)
    }
}
