import CModbus
import Dispatch
import LastsetSystem
import Glibc
import LastsetCore

/// Requests issued on a connection, counted on the wire (retries included).
public struct RequestCounters: Sendable, Hashable {
    /// Read requests sent (FC03 + FC04).
    public var reads = 0
    /// Write requests sent (FC06 + FC16).
    public var writes = 0
    /// Attempts repeated after a transient fault.
    public var retries = 0
    /// Connections opened (the first one included).
    public var connects = 0
    /// Zero counters.
    public init() {}
    /// Reads plus writes.
    public var total: Int { reads + writes }
}
