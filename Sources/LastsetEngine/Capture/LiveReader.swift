import Foundation
import LastsetCore

/// Reads a page's current values for the device view (the "watch" job); never writes.
public enum LiveReader {
    /// The page's registers as read now, with per-register errors; `requests` issued and the first error.
    public static func read(page: CompiledPage, from target: DeviceTarget) async -> (
        values: [LiveValue], requests: Int, error: String?
    ) {
        let readout = await PageReader.read(page.registers.map(\.span), from: target)
        let now = Date()
        var firstError: String?
        let layouts = page.layouts
        let values = page.registers.indices.map { i -> LiveValue in
            let def = page.registers[i].definition
            let span = AddressSpan(address: def.address, length: def.length)
            // Hex and value straight from the readout: no word or byte arrays per register.
            if let hex = readout.hex(for: span), let value = readout.value(for: span, layout: layouts[i]) {
                return LiveValue(
                    registerId: def.registerId, address: def.address, valueData: hex, value: value, lastDate: now,
                    error: nil)
            }
            let error = readout.failure(for: span).map(String.init(describing:)) ?? "not read"
            firstError = firstError ?? error
            return LiveValue(
                registerId: def.registerId, address: def.address, valueData: nil, value: nil, lastDate: nil, error: error)
        }
        return (values, readout.requests, firstError)
    }
}
