import LastsetFormats

/// The layer an override comes from: the device's own values or a named group's. Written `device:ID` /
/// `group:ID` in reports, audit records and device state.
public enum OverrideOrigin: Sendable, Hashable, CustomStringConvertible {
    /// The device's own value.
    case device(String)
    /// The value of a named group of devices the device belongs to.
    case group(String)

    /// The layer's id (a device or group id).
    public var id: String {
        switch self {
        case .device(let id), .group(let id): return id
        }
    }

    /// `device:press-01`, `group:line-a`.
    public var description: String {
        switch self {
        case .device(let id): return "device:\(id)"
        case .group(let id): return "group:\(id)"
        }
    }
}

extension OverrideOrigin: RawRepresentable, JSONFieldValue {
    /// From `device:ID` or `group:ID`.
    public init?(rawValue: String) {
        if rawValue.hasPrefix("device:") {
            self = .device(String(rawValue.dropFirst(7)))
        } else if rawValue.hasPrefix("group:") {
            self = .group(String(rawValue.dropFirst(6)))
        } else {
            return nil
        }
    }

    /// `device:ID` or `group:ID`.
    public var rawValue: String { description }
}
