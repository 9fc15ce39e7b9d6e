import LastsetCore
import ModbusLink

/// Reads the device identification (FC43/14) a page's identity objects need, for capture and replay alike.
public enum IdentificationReader {
    /// Reads up to the highest category `objects` name (basic objects alone: one request).
    static func read(_ objects: [IdentityObject], from target: DeviceTarget) async -> (
        result: Result<DeviceIdentification, ModbusError>, requests: Int
    ) {
        await read(upTo: objects.map(\.object.category).max() ?? .basic, from: target)
    }

    /// Reads every category up to `upTo` the device conforms to, in one hop onto the target's connection.
    /// `requests` counts the frames sent, retries included.
    public static func read(upTo: IdentificationCategory, from target: DeviceTarget) async -> (
        result: Result<DeviceIdentification, ModbusError>, requests: Int
    ) {
        let unit = target.unit
        let options = target.linkOptions
        return await target.connection.batch { link in
            let before = link.counters.total
            let result: Result<DeviceIdentification, ModbusError>
            do throws(ModbusError) {
                result = .success(try link.readIdentification(unit: unit, upTo: upTo, options: options))
            } catch {
                result = .failure(error)
            }
            return (result, link.counters.total - before)
        }
    }
}
