import LastsetCore
import ModbusLink

/// The outcome of reading a set of register spans: the words that came back and the spans that failed.
struct PageReadout: Sendable {
    var words: [Int: UInt16] = [:]
    var failures: [AddressSpan: ModbusError] = [:]
    /// Requests issued.
    var requests = 0

    /// The span's words, nil when any of them is missing.
    func words(for span: AddressSpan) -> [UInt16]? {
        var out: [UInt16] = []
        out.reserveCapacity(span.length)
        for a in span.address..<span.end {
            guard let w = words[a] else { return nil }
            out.append(w)
        }
        return out
    }
}

/// Reads spans with the fewest requests the device allows. When a merged read is answered with an
/// exception (e.g. 02 for one bad address in the block), its spans are read one by one so that only
/// the registers really at fault are reported.
enum PageReader {
    static func read(_ spans: [AddressSpan], from target: DeviceTarget) async -> PageReadout {
        var out = PageReadout()
        let unique = Array(Set(spans))
        for request in RequestPlanner.reads(unique, limits: target.limits) {
            if Task.isCancelled { break }
            out.requests += 1
            do {
                let words = try await target.readHolding(address: request.address, count: request.count)
                for (i, w) in words.enumerated() { out.words[request.address + i] = w }
            } catch {
                let inside = unique.filter { $0.address >= request.address && $0.end <= request.end }
                if error.exceptionCode != nil && inside.count > 1 {
                    for span in inside.sorted(by: { $0.address < $1.address }) {
                        out.requests += 1
                        do {
                            let words = try await target.readHolding(address: span.address, count: span.length)
                            for (i, w) in words.enumerated() { out.words[span.address + i] = w }
                        } catch {
                            out.failures[span] = error
                        }
                    }
                } else {
                    for span in inside { out.failures[span] = error }
                }
            }
        }
        return out
    }
}
