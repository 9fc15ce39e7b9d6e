import Glibc

/// A Unix-domain socket address (`sockaddr_un`), built in one place for bind, connect and sendto: a filesystem path,
/// or — written with a leading `@`, as systemd writes `NOTIFY_SOCKET` — a name in the abstract namespace.
public struct UnixSocketAddress: @unchecked Sendable {
    /// The bytes `sun_path` holds, a path's terminating NUL included (108 on Linux).
    public static let capacity = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// The name as given (`/run/lastset/api.sock`, `@notify`).
    public let name: String
    /// Whether it names the abstract namespace (a leading NUL on the wire, no file).
    public let isAbstract: Bool
    /// The address's length as the kernel takes it: up to the path's NUL, or to the abstract name's last byte.
    public let length: socklen_t
    private let address: sockaddr_un

    /// `name` as a socket path or, when `abstract` is allowed and it starts with `@`, as an abstract name. Throws when
    /// it is empty or does not fit `sun_path`.
    public init(_ name: String, allowingAbstract: Bool = false) throws(UnixSocketAddressError) {
        guard !name.isEmpty else { throw UnixSocketAddressError(name: name, reason: .empty) }
        var bytes = Array(name.utf8)
        let abstract = allowingAbstract && bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard bytes.count < Self.capacity else { throw UnixSocketAddressError(name: name, reason: .tooLong) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        self.name = name
        self.isAbstract = abstract
        self.address = address
        length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + bytes.count + (abstract ? 0 : 1))
    }

    /// Calls `body` with the address as a `sockaddr` and its length (for bind, connect, sendto).
    public func withSockaddr<R, E: Error>(_ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        var address = self.address
        let length = self.length
        return try withUnsafePointer(to: &address) { (pointer) throws(E) -> R in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { (sockaddr) throws(E) -> R in
                try body(sockaddr, length)
            }
        }
    }
}
