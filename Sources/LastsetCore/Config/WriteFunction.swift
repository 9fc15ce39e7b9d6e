import LastsetFormats

/// Which Modbus function writes registers on a device.
public enum WriteFunction: String, Codable, Sendable, Hashable {
    /// FC16 for runs, FC06 for single registers; falls back to FC06 when FC16 is refused.
    case auto
    /// FC06 only (one request per register).
    case fc06
    /// FC16 only, even for single registers.
    case fc16
}
