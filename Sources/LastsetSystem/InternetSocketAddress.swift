import Glibc

/// A numeric IPv4 or IPv6 address with a port (`sockaddr_in` / `sockaddr_in6`), built in one place for the API's
/// listening socket and the CLI's connection: `localhost` is 127.0.0.1, an IPv6 literal may keep its brackets, and no
/// name is ever resolved.
public struct InternetSocketAddress: @unchecked Sendable {
    /// `AF_INET` or `AF_INET6`.
    public let family: Int32
    /// The address's length as the kernel takes it.
    public let length: socklen_t
    private let storage: sockaddr_storage

    /// `host` (`127.0.0.1`, `::1`, `[::1]`, `localhost`) and `port`; nil when the host is not a numeric address.
    public init?(numericHost host: String, port: UInt16) {
        let literal = host == "localhost" ? "127.0.0.1" : HostPort.unbracketed(host)
        var storage = sockaddr_storage()
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v4, as: sockaddr_in.self) }
            family = AF_INET
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, literal, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
            family = AF_INET6
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            return nil
        }
        self.storage = storage
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for bind and connect).
    public func withSockaddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        var storage = self.storage
        let length = self.length
        return try withUnsafePointer(to: &storage) { (pointer) throws(E) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sockaddr) throws(E) -> R in
                try body(sockaddr, length)
            }
        }
    }
}
