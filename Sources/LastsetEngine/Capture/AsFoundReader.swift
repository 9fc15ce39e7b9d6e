import Foundation
import LastsetCore

/// Reads a page of a device as it is found, for its as-found record: every register's raw value whatever it holds
/// (set, at its "not set" value, outside its rules), and its identity (registers and FC43 objects). Never writes.
public enum AsFoundReader {
    /// What one page read gave.
    public struct Reading: Sendable {
        public var identity: [RecordedValue]
        public var values: [RecordedValue]
        /// Requests sent.
        public var requests: Int
        /// When the page was read (to the millisecond, as records keep it).
        public var readAt: Date
    }

    /// The page's values and identity, or why they could not all be read (a page read in part is not a record).
    public static func read(page: CompiledPage, from target: DeviceTarget) async -> Result<Reading, AsFoundReadError> {
        let spans =
            page.registers.map(\.span) + page.identity.map { AddressSpan(address: $0.address, length: $0.type.registerCount) }
        let readout = await PageReader.read(spans, from: target)
        let readAt = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 * 1000).rounded() / 1000)
        var identity: [RecordedValue] = []
        for reg in page.identity {
            let span = AddressSpan(address: reg.address, length: reg.type.registerCount)
            guard let words = readout.words(for: span) else {
                return .failure(AsFoundReadError(registerId: reg.registerId, cause: cause(readout, span)))
            }
            identity.append(
                RecordedValue(
                    registerId: reg.registerId, address: reg.address, valueData: words.bigEndianBytes.hexString,
                    value: RegisterCodec.decode(words, as: reg.definition)))
        }
        var values: [RecordedValue] = []
        values.reserveCapacity(page.registers.count)
        let layouts = page.layouts
        for (i, register) in page.registers.enumerated() {
            let span = register.span
            guard let hex = readout.hex(for: span), let value = readout.value(for: span, layout: layouts[i]) else {
                return .failure(AsFoundReadError(registerId: register.definition.registerId, cause: cause(readout, span)))
            }
            values.append(
                RecordedValue(registerId: register.definition.registerId, address: register.definition.address, valueData: hex, value: value))
        }
        var requests = readout.requests
        if !page.identityObjects.isEmpty {
            let (objects, problems, sent) = await Capture.identityObjectValues(page.identityObjects, from: target)
            requests += sent
            if let problem = problems.first { return .failure(AsFoundReadError(registerId: problem.registerId, cause: problem.rule)) }
            identity += objects
        }
        return .success(Reading(identity: identity, values: values, requests: requests, readAt: readAt))
    }

    private static func cause(_ readout: PageReadout, _ span: AddressSpan) -> String {
        readout.failure(for: span).map(String.init(describing:)) ?? "no data"
    }
}

/// A register of a page that could not be read as found, and why.
public struct AsFoundReadError: Error, Sendable, Hashable, CustomStringConvertible {
    public var registerId: String
    public var cause: String

    public var description: String { "\(registerId): read failed: \(cause)" }
}
