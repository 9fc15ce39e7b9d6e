import Foundation

/// A request as the journal records it.
public struct JournalRequest: Codable, Sendable, Hashable {
    public var function: WriteRequest.Function
    public var address: Int
    public var count: Int
    /// The registers it writes (empty for a beforeWrite / afterWrite step).
    public var registerIds: [String]

    /// Sets every field.
    public init(function: WriteRequest.Function, address: Int, count: Int, registerIds: [String]) {
        self.function = function
        self.address = address
        self.count = count
        self.registerIds = registerIds
    }

    /// The journal form of a planned write.
    public init(_ request: WriteRequest) {
        self.init(
            function: request.function, address: request.address, count: request.words.count,
            registerIds: request.registerIds)
    }
}
