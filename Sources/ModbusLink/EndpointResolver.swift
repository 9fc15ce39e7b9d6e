import Dispatch
import LastsetCore

#if canImport(Glibc)
    import Glibc
#endif

/// Resolves an endpoint to the machine it reaches (`MachineKey`): getaddrinfo for TCP (the first
/// IPv4 address, else the first IPv6 one; IPv4-mapped IPv6 counts as IPv4), realpath for a serial
/// device. Blocking lookups run on a Dispatch queue, never on the cooperative pool.
public enum EndpointResolver {
    /// The resolved key and the endpoint to connect to (the numeric address for TCP, so the
    /// connection reaches exactly what the key names).
    public struct Resolution: Sendable, Hashable {
        /// The machine the endpoint reaches.
        public var key: MachineKey
        /// The endpoint the connection opens.
        public var connectEndpoint: Endpoint
    }

    /// Resolves without blocking the caller's executor.
    public static func resolve(_ endpoint: Endpoint) async -> Resolution {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: resolveNow(endpoint)) }
        }
    }

    /// Resolves on the calling thread (blocks for a DNS lookup).
    public static func resolveNow(_ endpoint: Endpoint) -> Resolution {
        switch endpoint {
        case .tcp(let host, let port):
            guard let (family, address) = lookup(host) else {
                return Resolution(key: .unresolved(endpoint), connectEndpoint: endpoint)
            }
            return Resolution(
                key: .tcp(family: family, address: address, port: port), connectEndpoint: .tcp(host: address, port: port))
        case .rtu(let line):
            guard let real = realpath(line.path, nil) else {
                return Resolution(key: .rtu(realPath: line.path), connectEndpoint: endpoint)
            }
            defer { free(real) }
            return Resolution(key: .rtu(realPath: String(cString: real)), connectEndpoint: endpoint)
        }
    }

    /// The address family (4 or 6) and numeric address a host name resolves to first.
    static func lookup(_ host: String) -> (Int, String)? {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, nil, &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(first) }
        var v4: String?
        var v6: String?
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let addr = n.pointee.ai_addr {
                if n.pointee.ai_family == AF_INET, v4 == nil {
                    v4 = addr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                        var a = sin.pointee.sin_addr
                        return numeric(AF_INET, &a, Int(INET_ADDRSTRLEN))
                    }
                } else if n.pointee.ai_family == AF_INET6 {
                    addr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin6 in
                        var a = sin6.pointee.sin6_addr
                        let bytes = withUnsafeBytes(of: &a) { Array($0) }
                        // ::ffff:a.b.c.d is the IPv4 peer a.b.c.d.
                        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
                            if v4 == nil { v4 = bytes[12..<16].map(String.init).joined(separator: ".") }
                        } else if v6 == nil {
                            v6 = numeric(AF_INET6, &a, Int(INET6_ADDRSTRLEN))
                        }
                    }
                }
            }
            node = n.pointee.ai_next
        }
        if let v4 { return (4, v4) }
        if let v6 { return (6, v6) }
        return nil
    }

    private static func numeric(_ family: Int32, _ address: UnsafeRawPointer, _ size: Int) -> String? {
        var buffer = [CChar](repeating: 0, count: size)
        guard inet_ntop(family, address, &buffer, socklen_t(size)) != nil else { return nil }
        return String(cString: buffer)
    }
}
