/// A write request of the plan, as shown to users.
public struct PlannedRequest: Codable, Sendable, Hashable {
    public var function: WriteRequest.Function
    public var address: Int
    public var count: Int
    public var registerIds: [String]

    public init(function: WriteRequest.Function, address: Int, count: Int, registerIds: [String]) {
        self.function = function
        self.address = address
        self.count = count
        self.registerIds = registerIds
    }
}
