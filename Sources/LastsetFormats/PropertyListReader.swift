/// Reads property lists — binary (`bplist00`) and XML — from untrusted bytes without trapping.
///
/// Foundation's `PropertyListSerialization` hides keyed-archive UIDs in a private type and its
/// NSKeyedUnarchiver traps on some malformed archives on Linux, so imports use this reader. Every
/// offset, count and reference is checked against the file before it is used; size, nesting depth and
/// the number of objects are bounded; a reference cycle is an error, and shared objects are decoded once
/// (so a file of references to references cannot expand exponentially).
public enum PropertyListReader {
    /// Bounds applied while reading.
    public struct Limits: Sendable, Hashable {
        /// Largest accepted input, in bytes.
        public var maxBytes: Int
        /// Deepest accepted nesting of arrays and dictionaries.
        public var maxDepth: Int
        /// Most objects (binary) or elements (XML) accepted.
        public var maxObjects: Int

        /// Bounds from their parts.
        public init(maxBytes: Int, maxDepth: Int, maxObjects: Int) {
            self.maxBytes = maxBytes
            self.maxDepth = maxDepth
            self.maxObjects = maxObjects
        }

        /// 8 MiB, depth 64, 1,000,000 objects: far beyond any settings page, small enough to refuse a bomb.
        public static let standard = Limits(maxBytes: 8 << 20, maxDepth: 64, maxObjects: 1_000_000)
    }

    /// The binary plist magic.
    public static let binaryMagic = Array("bplist00".utf8)

    /// Whether the bytes look like a property list (binary magic, or XML naming a plist near the start).
    public static func looksLikePropertyList(_ bytes: [UInt8]) -> Bool {
        if bytes.starts(with: binaryMagic) { return true }
        let head = String(decoding: bytes.prefix(512), as: UTF8.self)
        let trimmed = head.drop { $0 == "\u{FEFF}" || $0.isWhitespace }
        return (trimmed.hasPrefix("<?xml") || trimmed.hasPrefix("<!DOCTYPE plist") || trimmed.hasPrefix("<plist"))
            && head.contains("<plist")
    }

    /// Parses binary or XML plist bytes.
    public static func parse(_ bytes: [UInt8], limits: Limits = .standard) throws(PropertyListError) -> PropertyList {
        guard bytes.count <= limits.maxBytes else {
            throw PropertyListError(
                "the file is \(bytes.count) bytes; at most \(limits.maxBytes) bytes (\(limits.maxBytes >> 20) MiB) are accepted")
        }
        if bytes.starts(with: binaryMagic) {
            var reader = try BinaryPlistReader(bytes, limits: limits)
            return try reader.top()
        }
        guard looksLikePropertyList(bytes) else {
            throw PropertyListError("not a property list (neither \"bplist00\" nor an XML <plist> document)")
        }
        var parser = XMLPropertyListParser(bytes, limits: limits)
        return try parser.document()
    }
}

/// The binary format: header, objects, offset table, 32-byte trailer.
private struct BinaryPlistReader {
    let b: [UInt8]
    let limits: PropertyListReader.Limits
    let offsetSize: Int
    let refSize: Int
    let count: Int
    let topObject: Int
    let tableOffset: Int
    var memo: [PropertyList?]
    var visiting: [Bool]

    init(_ bytes: [UInt8], limits: PropertyListReader.Limits) throws(PropertyListError) {
        b = bytes
        self.limits = limits
        guard bytes.count >= 8 + 1 + 32 else {
            throw PropertyListError(
                "truncated binary plist: \(bytes.count) bytes, too short for an object and the 32-byte trailer")
        }
        let t = bytes.count - 32
        offsetSize = Int(bytes[t + 6])
        refSize = Int(bytes[t + 7])
        func be64(_ at: Int) -> UInt64 { (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(bytes[at + $1]) } }
        let rawCount = be64(t + 8)
        let rawTop = be64(t + 16)
        let rawTable = be64(t + 24)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize) else {
            throw PropertyListError(
                "damaged binary plist trailer: offset size \(offsetSize) and reference size \(refSize) must be 1...8 (truncated file?)"
            )
        }
        guard rawCount >= 1, rawCount <= UInt64(limits.maxObjects) else {
            throw PropertyListError("binary plist declares \(rawCount) objects; 1...\(limits.maxObjects) are accepted")
        }
        count = Int(rawCount)
        guard rawTop < rawCount else {
            throw PropertyListError("binary plist's top object \(rawTop) is not among its \(count) objects")
        }
        topObject = Int(rawTop)
        // The offset table lies between the objects and the trailer.
        guard rawTable >= 9, rawTable <= UInt64(t), UInt64(t) - rawTable >= rawCount * UInt64(offsetSize) else {
            throw PropertyListError(
                "binary plist's offset table (\(count) × \(offsetSize) bytes at offset \(rawTable)) does not fit between the objects and the trailer at \(t) (truncated file?)"
            )
        }
        tableOffset = Int(rawTable)
        memo = [PropertyList?](repeating: nil, count: count)
        visiting = [Bool](repeating: false, count: count)
    }

    mutating func top() throws(PropertyListError) -> PropertyList { try object(topObject, depth: 0) }

    private func fail(_ object: Int, _ message: String) -> PropertyListError {
        PropertyListError("object \(object): \(message)")
    }

    /// Big-endian unsigned integer of `size` bytes at `at`, which must lie before the offset table.
    private func uint(_ at: Int, _ size: Int, limit: Int, _ object: Int) throws(PropertyListError) -> UInt64 {
        guard at >= 0, size <= limit - at, size <= 8 else {
            throw fail(object, "\(size)-byte field at offset \(at) runs past offset \(limit)")
        }
        var v: UInt64 = 0
        for i in 0..<size { v = v << 8 | UInt64(b[at + i]) }
        return v
    }

    private func offset(of object: Int) throws(PropertyListError) -> Int {
        let v = try uint(tableOffset + object * offsetSize, offsetSize, limit: b.count - 32, object)
        guard v >= 8, v < UInt64(tableOffset) else {
            throw fail(object, "offset \(v) is outside the object area 8..<\(tableOffset)")
        }
        return Int(v)
    }

    /// The count in a marker's low nibble, or the integer object after it when the nibble is 0xF.
    /// Returns the count and where the payload starts.
    private func length(_ marker: UInt8, at start: Int, _ object: Int) throws(PropertyListError) -> (Int, Int) {
        let nibble = Int(marker & 0x0F)
        if nibble != 0x0F { return (nibble, start + 1) }
        guard start + 1 < tableOffset else { throw fail(object, "count marker runs past the object area") }
        let intMarker = b[start + 1]
        guard intMarker >> 4 == 0x1, intMarker & 0x0F <= 3 else {
            throw fail(object, "count is not an integer (marker 0x\(String(intMarker, radix: 16)))")
        }
        let size = 1 << Int(intMarker & 0x0F)
        let v = try uint(start + 2, size, limit: tableOffset, object)
        guard v <= UInt64(tableOffset) else { throw fail(object, "count \(v) is larger than the file") }
        return (Int(v), start + 2 + size)
    }

    private func ref(_ at: Int, _ object: Int) throws(PropertyListError) -> Int {
        let v = try uint(at, refSize, limit: tableOffset, object)
        guard v < UInt64(count) else { throw fail(object, "refers to object \(v), but there are only \(count) objects") }
        return Int(v)
    }

    /// `n` references of `refSize` bytes from `at`, all within the object area.
    private func refs(_ n: Int, at: Int, _ object: Int) throws(PropertyListError) -> [Int] {
        guard n <= (tableOffset - at) / refSize else {
            throw fail(object, "\(n) references at offset \(at) run past the object area (ends at \(tableOffset))")
        }
        var out: [Int] = []
        out.reserveCapacity(n)
        for i in 0..<n { out.append(try ref(at + i * refSize, object)) }
        return out
    }

    mutating func object(_ index: Int, depth: Int) throws(PropertyListError) -> PropertyList {
        if let done = memo[index] { return done }
        guard !visiting[index] else { throw fail(index, "reference cycle (the object contains itself)") }
        guard depth <= limits.maxDepth else { throw fail(index, "nested deeper than \(limits.maxDepth) levels") }
        visiting[index] = true
        defer { visiting[index] = false }
        let start = try offset(of: index)
        let marker = b[start]
        let value: PropertyList
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: value = .bool(false)
            case 0x09: value = .bool(true)
            default:
                throw fail(
                    index, "unsupported marker 0x\(String(marker, radix: 16)) (null and fill objects are not used by archives)")
            }
        case 0x1: value = .integer(try integer(marker, at: start, index))
        case 0x2:
            switch marker & 0x0F {
            case 2: value = .real(Double(Float(bitPattern: UInt32(try uint(start + 1, 4, limit: tableOffset, index)))))
            case 3: value = .real(Double(bitPattern: try uint(start + 1, 8, limit: tableOffset, index)))
            default: throw fail(index, "real of marker 0x\(String(marker, radix: 16)) is not supported")
            }
        case 0x3:
            guard marker == 0x33 else { throw fail(index, "date marker 0x\(String(marker, radix: 16)) is not 0x33") }
            value = .date(Double(bitPattern: try uint(start + 1, 8, limit: tableOffset, index)))
        case 0x4:
            let (n, at) = try length(marker, at: start, index)
            guard n <= tableOffset - at else { throw fail(index, "data of \(n) bytes runs past the object area") }
            value = .data(Array(b[at..<at + n]))
        case 0x5, 0x6: value = .string(try string(marker, at: start, index))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else { throw fail(index, "reference of \(size) bytes is not supported") }
            value = .uid(try uint(start + 1, size, limit: tableOffset, index))
        case 0xA, 0xC: value = .array(try array(marker, at: start, index, depth: depth))
        case 0xD: value = .dictionary(try dictionary(marker, at: start, index, depth: depth))
        default:
            throw fail(index, "unknown marker 0x\(String(marker, radix: 16))")
        }
        memo[index] = value
        return value
    }

    /// An integer object (1, 2, 4 or 8 bytes; 16 when it fits 64 bits signed).
    private func integer(_ marker: UInt8, at start: Int, _ index: Int) throws(PropertyListError) -> Int64 {
        let n = Int(marker & 0x0F)
        switch n {
        case 0, 1, 2:
            return Int64(try uint(start + 1, 1 << n, limit: tableOffset, index))
        case 3:
            return Int64(bitPattern: try uint(start + 1, 8, limit: tableOffset, index))
        case 4:
            // 128-bit: accepted when it fits 64 bits signed.
            let high = try uint(start + 1, 8, limit: tableOffset, index)
            let low = try uint(start + 9, 8, limit: tableOffset, index)
            guard high == 0, low <= UInt64(Int64.max) else { throw fail(index, "integer does not fit 64 bits") }
            return Int64(low)
        default: throw fail(index, "integer of 2^\(n) bytes is not supported")
        }
    }

    /// A string object: ASCII/UTF-8 (marker 0x5_) or UTF-16 big-endian (0x6_).
    private func string(_ marker: UInt8, at start: Int, _ index: Int) throws(PropertyListError) -> String {
        let (n, at) = try length(marker, at: start, index)
        if marker >> 4 == 0x5 {
            guard n <= tableOffset - at else { throw fail(index, "string of \(n) bytes runs past the object area") }
            let bytes = b[at..<at + n]
            guard let s = String(validating: bytes, as: UTF8.self) else { throw fail(index, "string is not ASCII/UTF-8") }
            return s
        }
        guard n <= (tableOffset - at) / 2 else { throw fail(index, "string of \(n) UTF-16 units runs past the object area") }
        var units: [UInt16] = []
        units.reserveCapacity(n)
        for i in 0..<n { units.append(UInt16(b[at + 2 * i]) << 8 | UInt16(b[at + 2 * i + 1])) }
        return String(decoding: units, as: UTF16.self)
    }

    /// An array (or set) object: its items, read one level deeper.
    private mutating func array(_ marker: UInt8, at start: Int, _ index: Int, depth: Int) throws(PropertyListError)
        -> [PropertyList]
    {
        let (n, at) = try length(marker, at: start, index)
        var items: [PropertyList] = []
        items.reserveCapacity(Swift.min(n, 4096))
        for r in try refs(n, at: at, index) { items.append(try object(r, depth: depth + 1)) }
        return items
    }

    /// A dictionary object: string keys (each once) and their values, read one level deeper.
    private mutating func dictionary(_ marker: UInt8, at start: Int, _ index: Int, depth: Int) throws(PropertyListError)
        -> [String: PropertyList]
    {
        let (n, at) = try length(marker, at: start, index)
        guard n <= (tableOffset - at) / (2 * refSize) else {
            throw fail(index, "dictionary of \(n) pairs runs past the object area")
        }
        let keys = try refs(n, at: at, index)
        let values = try refs(n, at: at + n * refSize, index)
        var dict: [String: PropertyList] = [:]
        for (k, v) in zip(keys, values) {
            guard case .string(let key) = try object(k, depth: depth + 1) else {
                throw fail(index, "dictionary key (object \(k)) is not a string")
            }
            guard dict[key] == nil else { throw fail(index, "dictionary has the key \"\(key)\" twice") }
            dict[key] = try object(v, depth: depth + 1)
        }
        return dict
    }
}
