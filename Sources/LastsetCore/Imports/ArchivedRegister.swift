import Foundation

/// One `SARegister` of the legacy iOS app's archive, as decoded; any field may be nil (`$null`).
public struct ArchivedRegister: Hashable, Sendable {
    /// Position in the archive's root array (0-based), for messages.
    public var index: Int
    /// The page register this is a value of.
    public var registerId: String?
    /// The name the app showed.
    public var name: String?
    /// 0-based PDU address (`encodeInteger:forKey:`).
    public var address: Int?
    /// The raw register bytes as read (big-endian words, as on the wire).
    public var valueData: [UInt8]?
    /// When valueData was read.
    public var lastDate: Date?

    /// A register from its parts.
    public init(index: Int, registerId: String?, name: String?, address: Int?, valueData: [UInt8]?, lastDate: Date?) {
        self.index = index
        self.registerId = registerId
        self.name = name
        self.address = address
        self.valueData = valueData
        self.lastDate = lastDate
    }
}
