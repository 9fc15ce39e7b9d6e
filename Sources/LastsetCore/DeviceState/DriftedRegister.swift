import Foundation

/// One register whose live value is not what the applied template wrote.
public struct DriftedRegister: Codable, Sendable, Hashable {
    public var registerId: String
    public var address: Int
    /// What the template wrote (hex, and its readable view).
    public var expectedData: String
    public var expected: RegisterValue
    /// What the device holds now.
    public var liveData: String
    public var live: RegisterValue?

    /// Sets every field.
    public init(
        registerId: String, address: Int, expectedData: String, expected: RegisterValue, liveData: String,
        live: RegisterValue?
    ) {
        self.registerId = registerId
        self.address = address
        self.expectedData = expectedData
        self.expected = expected
        self.liveData = liveData
        self.live = live
    }
}
