import Foundation

/// A generated settings page of the benchmark: its registers, JSON for the config, and the values
/// the simulators are filled with.
struct BenchPage {
    /// One register definition.
    struct Register {
        /// Config type name ("u16", "u32", …).
        var type: String
        /// First address.
        var address: Int
        /// Words.
        var length: Int
    }

    /// Page id.
    var id: String
    /// Registers in page (write) order.
    var registers: [Register]

    /// The word every simulator holds at `address`; the C and Python workers compute the same.
    static func value(at address: Int) -> Int { (address * 7 + 1) % 50000 }

    /// A contiguous page of `words` registers from `start`: repeating u16, s16, u32 (4 words).
    static func contiguous(id: String, words: Int, start: Int = 100) -> BenchPage {
        var regs: [Register] = []
        var a = start
        let pattern: [(String, Int)] = [("u16", 1), ("s16", 1), ("u32", 2)]
        var i = 0
        while a < start + words {
            var (type, length) = pattern[i % pattern.count]
            if a + length > start + words { (type, length) = ("u16", 1) }
            regs.append(Register(type: type, address: a, length: length))
            a += length
            i += 1
        }
        return BenchPage(id: id, registers: regs)
    }

    /// A page with gaps between registers (some bridgeable with maxGap 8, some not) and mixed widths.
    static func withGaps(id: String, count: Int, start: Int = 100) -> BenchPage {
        let types: [(String, Int)] = [("u16", 1), ("u32", 2), ("s16", 1), ("u64", 4), ("s32", 2), ("u16", 1)]
        let gaps = [0, 0, 2, 0, 8, 0, 9, 0, 30, 1, 0, 5, 0, 0, 12, 3]
        var regs: [Register] = []
        var a = start
        for i in 0..<count {
            let (type, length) = types[i % types.count]
            regs.append(Register(type: type, address: a, length: length))
            a += length + gaps[i % gaps.count]
        }
        return BenchPage(id: id, registers: regs)
    }

    /// The fewest requests of at most `max` registers covering this contiguous page without splitting
    /// a register (greedy, which is optimal for one contiguous run): the C and pymodbus loops' plan.
    func chunks(max: Int) -> [(address: Int, count: Int)] {
        var out: [(address: Int, count: Int)] = []
        for r in registers.sorted(by: { $0.address < $1.address }) {
            if let last = out.last, last.address + last.count == r.address, last.count + r.length <= max {
                out[out.count - 1].count += r.length
            } else {
                out.append((r.address, r.length))
            }
        }
        return out
    }

    /// Total words of all registers.
    var words: Int { registers.reduce(0) { $0 + $1.length } }
    /// First address.
    var start: Int { registers.first?.address ?? 0 }
    /// One past the last address.
    var end: Int { registers.map { $0.address + $0.length }.max() ?? 0 }
    /// Whether the registers are one gap-free run in address order.
    var isContiguous: Bool { words == end - start }

    /// The page as a config JSON object.
    var json: String {
        let regs = registers.map {
            "{\"registerId\":\"\(id).r\($0.address)\",\"name\":\"R\($0.address)\",\"address\":\($0.address),\"type\":\"\($0.type)\"}"
        }
        return "{\"id\":\"\(id)\",\"title\":\"Bench \(id)\",\"registers\":[\n" + regs.joined(separator: ",\n") + "]}"
    }

    /// A values file for lastset-sim: every word from start to end (gaps too).
    var valuesJSON: String {
        "{" + (start..<end).map { "\"\($0)\":\(Self.value(at: $0))" }.joined(separator: ",") + "}"
    }
}

/// A config file for lastset-sim and lastsetd.
enum BenchConfig {
    /// One device entry.
    struct Device {
        var id: String
        var port: Int
        var unit = 1
        var pages: [String]
        var poll: String? = nil
        var maxRead: Int? = nil
        /// A TCP gateway to one device per unit: several units of one endpoint are polled (and held) apart.
        var gateway = false
        /// Scheduled backup interval (docs/AS-FOUND.md); nil: none.
        var backup: String? = nil
    }

    /// Writes a config with `pages` and `devices` to `path`.
    /// `socketConnectionsPerUser`: the API connections one user may hold at once (nil: the daemon's default).
    /// `overrides`: the `overrides` section's JSON (docs/OVERRIDES.md), nil: none.
    static func write(
        path: String, pages: [BenchPage], devices: [Device], socketConnectionsPerUser: Int? = nil, overrides: String? = nil
    ) throws {
        let devs = devices.map { d in
            var fields = [
                "\"id\":\"\(d.id)\"", "\"endpoint\":\"tcp://127.0.0.1:\(d.port)\"", "\"unit\":\(d.unit)",
                "\"pages\":[" + d.pages.map { "\"\($0)\"" }.joined(separator: ",") + "]",
            ]
            if let poll = d.poll { fields.append("\"poll\":\"\(poll)\"") }
            if d.gateway { fields.append("\"gateway\":true") }
            if let backup = d.backup { fields.append("\"backup\":\"\(backup)\"") }
            if let m = d.maxRead { fields.append("\"quirks\":{\"maxReadRegisters\":\(m)}") }
            return "{" + fields.joined(separator: ",") + "}"
        }
        let overridesText: String = overrides.map { ",\n\"overrides\":" + $0 } ?? ""
        let text =
            "{\"version\":1,\"history\":5,"
            + (socketConnectionsPerUser.map { "\"api\":{\"socketConnectionsPerUser\":\($0)}," } ?? "") + "\"devices\":[\n" + devs.joined(separator: ",\n") + "],\n\"pages\":[\n"
            + pages.map(\.json).joined(separator: ",\n") + "]" + overridesText + "}\n"
        do {
            try text.write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            throw BenchError("cannot write config \(path): \(error)")
        }
    }
}
