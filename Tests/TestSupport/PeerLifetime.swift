import XCTest

extension XCTestCase {
    /// A pymodbus peer on loopback TCP serving `values` (address → words) with the server's `options`
    /// (fault flags, delays), stopped when the test ends.
    public func pymodbusPeer(_ values: [Int: [UInt16]], _ options: [String] = []) throws -> PymodbusPeer {
        stopAtEnd(try PymodbusPeer.startTCP(options: options, values: values))
    }

    /// Stops a peer started another way (RTU, identification, a fixture's values) when the test ends.
    @discardableResult
    public func stopAtEnd(_ peer: PymodbusPeer) -> PymodbusPeer {
        addTeardownBlock { peer.stop() }
        return peer
    }
}
