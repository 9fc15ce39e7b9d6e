import Glibc
import LastsetSystem

/// A minimal blocking HTTP/1.1 client for the daemon's API: one request per connection (`Connection: close`).
///
/// Blocking by design: the CLI makes one call at a time. Do not call it from the Swift concurrency pool in bulk.
public struct HTTPClient: Sendable {
    /// Where requests go.
    public let endpoint: ClientEndpoint
    /// The limit for the whole exchange: connect, send and the complete reply.
    public let timeout: Duration
    /// Sent as `Authorization: Bearer …` when set (needed on TCP only).
    public let bearerToken: String?

    /// Creates a client; nothing is connected until `send`.
    public init(endpoint: ClientEndpoint = .defaultSocket, timeout: Duration = .seconds(30), bearerToken: String? = nil) {
        self.endpoint = endpoint
        self.timeout = timeout
        self.bearerToken = bearerToken
    }

    /// Sends one request and returns the complete response; a JSON Content-Type is added when a body is given without one.
    public func send(
        method: String, path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws(HTTPClientError) -> HTTPClientResponse {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let fd = try connectSocket(deadline: deadline)
        defer { close(fd) }
        try writeAll(fd, requestBytes(method: method, path: path, body: body, headers: headers), deadline: deadline)
        return try readResponse(fd, isHead: method.uppercased() == "HEAD", deadline: deadline)
    }

    /// Sends one request and writes a successful (2xx) reply's body to `file` as it arrives, never holding it in
    /// memory (a database backup); the returned response's `body` is then empty. A reply that is not 2xx is
    /// returned whole, its body in memory. `firstByte` bounds the wait for the reply's head (the server prepares
    /// the body first); after it, `idle` bounds each silence, however long the whole transfer takes.
    public func download(
        method: String, path: String, body: [UInt8]? = nil, headers: [String: String] = [:], to file: Int32,
        firstByte: Duration, idle: Duration
    ) throws(HTTPClientError) -> HTTPClientResponse {
        let failure = FileWriteFailure()
        do throws(HTTPClientError) {
            return try stream(
                method: method, path: path, body: body, headers: headers, firstByte: firstByte, idle: idle
            ) { bytes in
                guard let code = bytes.withUnsafeBytes({ FileDescriptorWrite.all(file, $0) }) else { return true }
                failure.errno = code
                return false
            }
        } catch {
            if let code = failure.errno { throw .io(endpoint, "writing the reply to a file from", errno: code) }
            throw error
        }
    }

    /// Sends one request and hands a successful (2xx) reply's body to `receive` as it arrives (a download, the
    /// daemon's events); the returned response's `body` is then empty. `receive` returning false ends the exchange
    /// (the connection is closed) and the response so far is returned. A reply that is not 2xx is returned whole.
    /// `firstByte` bounds the wait for the reply's head; after it, `idle` bounds each silence.
    public func stream(
        method: String, path: String, body: [UInt8]? = nil, headers: [String: String] = [:], firstByte: Duration,
        idle: Duration, receive: @escaping ([UInt8]) -> Bool
    ) throws(HTTPClientError) -> HTTPClientResponse {
        let fd = try connectSocket(deadline: ContinuousClock.now.advanced(by: timeout))
        defer { close(fd) }
        try writeAll(
            fd, requestBytes(method: method, path: path, body: body, headers: headers),
            deadline: ContinuousClock.now.advanced(by: timeout))
        let stopped = FileWriteFailure()
        let parser = ResponseParser(isHeadRequest: false) { bytes in
            guard receive(Array(bytes)) else {
                stopped.errno = 0
                return false
            }
            return true
        }
        do throws(HTTPClientError) {
            return try readResponse(fd, parser: parser, deadline: ContinuousClock.now.advanced(by: firstByte), idle: idle)
        } catch {
            // Ended by the receiver: what it asked for, not a failure (the sink is only called on a 2xx reply).
            if stopped.errno == 0 { return HTTPClientResponse(status: 200, headers: [:], body: []) }
            throw error
        }
    }

    /// Encodes the request head and body.
    func requestBytes(method: String, path: String, body: [UInt8]?, headers: [String: String]) -> [UInt8] {
        var lower = Set(headers.keys.map { $0.lowercased() })
        var head = "\(method) \(path) HTTP/1.1\r\n"
        if !lower.contains("host") {
            switch endpoint {
            case .unix: head += "Host: localhost\r\n"
            case .tcp: head += "Host: \(endpoint)\r\n"
            }
        }
        head += "Connection: close\r\n"
        if !lower.contains("accept") { head += "Accept: application/json\r\n" }
        if let bearerToken, !lower.contains("authorization") { head += "Authorization: Bearer \(bearerToken)\r\n" }
        if let body {
            if !lower.contains("content-type") { head += "Content-Type: application/json\r\n" }
            head += "Content-Length: \(body.count)\r\n"
            lower.insert("content-length")
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) where name.lowercased() != "content-length" {
            head += "\(name): \(value)\r\n"
        }
        head += "\r\n"
        return Array(head.utf8) + (body ?? [])
    }

    private func connectSocket(deadline: ContinuousClock.Instant) throws(HTTPClientError) -> Int32 {
        var storage = sockaddr_storage()
        let length: socklen_t
        let family: Int32
        switch endpoint {
        case .unix(let path):
            family = AF_UNIX
            let address: UnixSocketAddress
            do throws(UnixSocketAddressError) {
                address = try UnixSocketAddress(path)
            } catch {
                throw .cannotConnect(endpoint, errno: error.reason == .tooLong ? ENAMETOOLONG : ENOENT)
            }
            address.withSockaddr { pointer, length in
                withUnsafeMutableBytes(of: &storage) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
                }
            }
            length = address.length
        case .tcp(let host, let port):
            guard let address = InternetSocketAddress(numericHost: host, port: port) else {
                throw .invalidEndpoint("http://\(host):\(port)", because: "not a numeric IPv4/IPv6 address or localhost")
            }
            family = address.family
            address.withSockaddr { pointer, length in
                withUnsafeMutableBytes(of: &storage) {
                    $0.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(length)))
                }
            }
            length = address.length
        }

        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { throw .io(endpoint, "socket() for", errno: errno) }
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) }
        }
        if result == 0 { return fd }
        var code = errno
        if code == EINPROGRESS {
            do throws(HTTPClientError) {
                try wait(fd, for: Int16(POLLOUT), deadline: deadline, phase: "connecting")
            } catch {
                close(fd)
                throw error
            }
            var soError: Int32 = 0
            var soLength = socklen_t(MemoryLayout<Int32>.size)
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soError, &soLength)
            if soError == 0 { return fd }
            code = soError
        }
        close(fd)
        throw .cannotConnect(endpoint, errno: code)
    }

    private func writeAll(_ fd: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                Glibc.send(fd, raw.baseAddress! + offset, raw.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent >= 0 {
                offset += sent
                continue
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int16(POLLOUT), deadline: deadline, phase: "sending the request")
            // The server may answer early and close (e.g. 413 for a body over its limit): go read that answer.
            case EPIPE, ECONNRESET: return
            default: throw .io(endpoint, "sending to", errno: code)
            }
        }
    }

    private func readResponse(_ fd: Int32, isHead: Bool, deadline: ContinuousClock.Instant) throws(HTTPClientError)
        -> HTTPClientResponse
    {
        try readResponse(fd, parser: ResponseParser(isHeadRequest: isHead), deadline: deadline, idle: nil)
    }

    /// Reads the reply into `parser`; with `idle`, every chunk received moves the deadline to `idle` from then.
    private func readResponse(
        _ fd: Int32, parser: ResponseParser, deadline: ContinuousClock.Instant, idle: Duration?
    ) throws(HTTPClientError) -> HTTPClientResponse {
        var parser = parser
        var deadline = deadline
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let received = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress!, $0.count, 0) }
            do throws(ResponseParser.Failure) {
                if received > 0 {
                    if let idle { deadline = ContinuousClock.now.advanced(by: idle) }
                    if let response = try parser.feed(chunk[0..<received]) { return response }
                    continue
                }
                if received == 0 { return try parser.finish() }
            } catch {
                throw .malformed(endpoint, error.detail)
            }
            let code = errno
            switch code {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: try wait(fd, for: Int16(POLLIN), deadline: deadline, phase: "waiting for the reply")
            case ECONNRESET:
                do throws(ResponseParser.Failure) { return try parser.finish() } catch {
                    throw .malformed(endpoint, error.detail)
                }
            default: throw .io(endpoint, "receiving from", errno: code)
            }
        }
    }

    private func wait(_ fd: Int32, for events: Int16, deadline: ContinuousClock.Instant, phase: String) throws(HTTPClientError) {
        while true {
            let remaining = ContinuousClock.now.duration(to: deadline)
            guard remaining > .zero else { throw .timeout(endpoint, timeout, phase: phase) }
            let (seconds, attoseconds) = remaining.components
            let milliseconds = Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return }
            if ready < 0 && errno != EINTR { throw .io(endpoint, "poll on", errno: errno) }
        }
    }
}

/// The errno of a failed write of a download's body (set by the parser's sink, read after the exchange).
/// What a body's receiver recorded when it stopped the exchange (a file write's errno; 0: the receiver had enough).
private final class FileWriteFailure: @unchecked Sendable {
    var errno: Int32?
}
