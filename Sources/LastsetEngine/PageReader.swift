import LastsetCore
import ModbusLink

/// The outcome of reading a set of register spans: the words that came back and the spans that failed.
/// Words are kept densely from the lowest address read (lookups per register must not hash).
struct PageReadout: Sendable {
    private var base = 0
    private var values: [UInt16] = []
    private var present: [Bool] = []
    var failures: [AddressSpan: ModbusError] = [:]
    /// Requests issued.
    var requests = 0

    /// An empty readout for addresses `range`.
    init(covering range: Range<Int> = 0..<0) {
        base = range.lowerBound
        values = [UInt16](repeating: 0, count: range.count)
        present = [Bool](repeating: false, count: range.count)
    }

    /// Records words read from `address`.
    mutating func store(_ words: [UInt16], at address: Int) {
        for (i, w) in words.enumerated() {
            let k = address + i - base
            guard k >= 0 && k < values.count else { continue }
            values[k] = w
            present[k] = true
        }
    }

    /// The span's words, nil when any of them is missing.
    func words(for span: AddressSpan) -> [UInt16]? {
        let lo = span.address - base
        let hi = span.end - base
        guard lo >= 0, hi <= values.count, lo < hi, !present[lo..<hi].contains(false) else { return nil }
        return Array(values[lo..<hi])
    }
}

/// Reads spans with the fewest requests the device allows. When a merged read is answered with an
/// exception (e.g. 02 for one bad address in the block), its spans are read one by one so that only
/// the registers really at fault are reported.
enum PageReader {
    static func read(_ spans: [AddressSpan], from target: DeviceTarget) async -> PageReadout {
        let unique = Array(Set(spans))
        let plan = RequestPlanner.reads(unique, limits: target.limits)
        let unit = target.unit
        let options = target.linkOptions
        // The whole plan in one hop onto the connection's executor: no thread switch per request.
        return await target.connection.batch { connection in
            var out = PageReadout(covering: (plan.map(\.address).min() ?? 0)..<(plan.map(\.end).max() ?? 0))
            for request in plan {
                if Task.isCancelled { break }
                do throws(ModbusError) {
                    try Self.read(request.address, request.count, into: &out, on: connection, unit: unit, options: options)
                } catch {
                    let inside = unique.filter { $0.address >= request.address && $0.end <= request.end }
                    guard error.exceptionCode != nil && inside.count > 1 else {
                        for span in inside { out.failures[span] = error }
                        continue
                    }
                    for span in inside.sorted(by: { $0.address < $1.address }) {
                        do throws(ModbusError) {
                            try Self.read(span.address, span.length, into: &out, on: connection, unit: unit, options: options)
                        } catch {
                            out.failures[span] = error
                        }
                    }
                }
            }
            return out
        }
    }

    private static func read(
        _ address: Int, _ count: Int, into out: inout PageReadout, on connection: isolated ModbusConnection, unit: Int,
        options: LinkOptions
    ) throws(ModbusError) {
        out.requests += 1
        let words = try connection.readHoldingRegisters(unit: unit, address: address, count: count, options: options)
        out.store(words, at: address)
    }
}
