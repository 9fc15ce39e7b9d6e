/// Writes a property list in the binary `bplist00` format (what NSKeyedArchiver writes on iOS).
///
/// Every value becomes its own object (equal strings are shared, as CoreFoundation does); dictionary
/// keys are written in sorted order so the output is deterministic.
public enum PropertyListWriter {
    /// The binary plist bytes of `value`.
    public static func binary(_ value: PropertyList) -> [UInt8] {
        // Objects are numbered depth-first (the top object is 0); containers are filled in once their
        // children have numbers, so references are known when a container is encoded.
        var refSize = 1
        let upperBound = objectCount(value)
        while upperBound >= 1 << (8 * refSize) { refSize += 1 }
        var objects = Objects(refSize: refSize)
        _ = objects.add(value)

        var file = PropertyListReader.binaryMagic
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.encoded.count)
        for o in objects.encoded {
            offsets.append(file.count)
            file += o
        }
        let tableOffset = file.count
        var offsetSize = 1
        while tableOffset >= 1 << (8 * offsetSize) { offsetSize += 1 }
        for o in offsets { file += bigEndian(UInt64(o), offsetSize) }
        file += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        file += bigEndian(UInt64(objects.encoded.count), 8)
        file += bigEndian(0, 8)
        file += bigEndian(UInt64(tableOffset), 8)
        return file
    }

    /// How many objects `value` makes at most (strings not shared): what the reference size must count to.
    private static func objectCount(_ v: PropertyList) -> Int {
        switch v {
        case .array(let a): return 1 + a.reduce(0) { $0 + objectCount($1) }
        case .dictionary(let d): return 1 + d.reduce(0) { $0 + 1 + objectCount($1.value) }
        default: return 1
        }
    }

    /// The objects of a file being written, each encoded, in number order; equal strings share one.
    private struct Objects {
        let refSize: Int
        var encoded: [[UInt8]] = []
        var strings: [String: Int] = [:]

        init(refSize: Int) { self.refSize = refSize }

        /// Numbers `v` (and its children, depth-first) and encodes it; returns its number.
        mutating func add(_ v: PropertyList) -> Int {
            if case .string(let s) = v, let existing = strings[s] { return existing }
            let index = encoded.count
            encoded.append([])
            var out: [UInt8] = []
            switch v {
            case .string(let s):
                strings[s] = index
                if s.utf8.allSatisfy({ $0 < 0x80 }) {
                    marker(0x50, s.utf8.count, &out)
                    out += s.utf8
                } else {
                    let units = Array(s.utf16)
                    marker(0x60, units.count, &out)
                    for u in units { out += [UInt8(u >> 8), UInt8(u & 0xFF)] }
                }
            case .integer(let i): integer(i, &out)
            case .real(let d):
                out.append(0x23)
                out += bigEndian(d.bitPattern, 8)
            case .bool(let b): out.append(b ? 0x09 : 0x08)
            case .date(let d):
                out.append(0x33)
                out += bigEndian(d.bitPattern, 8)
            case .data(let bytes):
                marker(0x40, bytes.count, &out)
                out += bytes
            case .uid(let u):
                let size = u <= 0xFF ? 1 : u <= 0xFFFF ? 2 : u <= 0xFFFF_FFFF ? 4 : 8
                out.append(0x80 | UInt8(size - 1))
                out += bigEndian(u, size)
            case .array(let items):
                var refs: [Int] = []
                for item in items { refs.append(add(item)) }
                marker(0xA0, refs.count, &out)
                for r in refs { out += bigEndian(UInt64(r), refSize) }
            case .dictionary(let d):
                let keys = d.keys.sorted()
                var refs: [Int] = []
                for key in keys { refs.append(add(.string(key))) }
                for key in keys { refs.append(add(d[key]!)) }
                marker(0xD0, keys.count, &out)
                for r in refs { out += bigEndian(UInt64(r), refSize) }
            }
            encoded[index] = out
            return index
        }
    }

    private static func bigEndian(_ v: UInt64, _ size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: v >> (8 * UInt64(size - 1 - $0))) }
    }

    private static func integer(_ i: Int64, _ out: inout [UInt8]) {
        if i >= 0 && i <= 0xFF {
            out += [0x10, UInt8(i)]
        } else if i >= 0 && i <= 0xFFFF {
            out.append(0x11)
            out += bigEndian(UInt64(i), 2)
        } else if i >= 0 && i <= 0xFFFF_FFFF {
            out.append(0x12)
            out += bigEndian(UInt64(i), 4)
        } else {
            out.append(0x13)
            out += bigEndian(UInt64(bitPattern: i), 8)
        }
    }

    /// A marker with its count: in the low nibble below 15, else 0xF and an integer object.
    private static func marker(_ high: UInt8, _ count: Int, _ out: inout [UInt8]) {
        if count < 15 {
            out.append(high | UInt8(count))
        } else {
            out.append(high | 0x0F)
            integer(Int64(count), &out)
        }
    }
}
