import CMicroHTTPD
import Dispatch
import Glibc
import LastsetCore
import Synchronization

/// Immutable per-listener state handed to libmicrohttpd as its callback context.
///
/// Unchecked: the PEM copies are written once in `init`, only read by MHD, and freed when the context goes.
final class ListenerContext: @unchecked Sendable {
    let handler: HTTPHandler
    let maxBodyBytes: Int
    let uploadLimit: (@Sendable (String, String) -> Int?)?
    let isUnix: Bool
    /// Who holds the listener's connections and how long their requests take.
    let connections: ConnectionGuard
    /// The streams this listener's connections are sending (ended before the listener stops: a connection thread
    /// blocked in one would hold `MHD_stop_daemon`).
    let streams = Mutex<[ObjectIdentifier: HTTPStream]>([:])
    /// The silence after which a stream sends its keep-alive bytes (well within the connection timeout).
    let keepAlive: Duration
    /// NUL-terminated copies of the TLS key and certificate, alive as long as the daemon that uses them.
    let tlsKey: UnsafeMutablePointer<CChar>?
    let tlsCertificate: UnsafeMutablePointer<CChar>?

    init(
        handler: @escaping HTTPHandler, maxBodyBytes: Int, uploadLimit: (@Sendable (String, String) -> Int?)?, isUnix: Bool,
        connections: ConnectionGuard, tls: HTTPServerConfiguration.TLSMaterial?, keepAlive: Duration
    ) {
        self.keepAlive = keepAlive
        self.handler = handler
        self.maxBodyBytes = maxBodyBytes
        self.uploadLimit = uploadLimit
        self.isUnix = isUnix
        self.connections = connections
        tlsKey = tls.flatMap { strdup($0.keyPEM) }
        tlsCertificate = tls.flatMap { strdup($0.certificatePEM) }
    }

    deinit {
        free(tlsKey)
        free(tlsCertificate)
    }
}

/// Per-request state kept in MHD's `con_cls`; only touched on that connection's own MHD thread.
final class RequestState {
    /// Set once the headers have been seen (the access handler's first call).
    var started = false
    /// Why the raw request target is refused (a control byte), found before MHD unescaped it.
    var badTarget: String?
    var body: [UInt8] = []
    /// This request's body limit (decided from its method and path when the headers arrive).
    var limit = 0
    var tooLarge = false
    var responded = false
}

/// Carries the handler's response from its task back to the blocked MHD thread (the semaphore orders the accesses).
private final class ResponseSlot: @unchecked Sendable {
    var response: HTTPResponse?
}

/// A stream with what its reader needs, handed to MHD as the content reader's context.
private final class StreamBox {
    let stream: HTTPStream
    let keepAlive: Duration
    weak var listener: ListenerContext?

    init(stream: HTTPStream, keepAlive: Duration, listener: ListenerContext?) {
        self.stream = stream
        self.keepAlive = keepAlive
        self.listener = listener
    }
}

/// Collects key/value pairs from `MHD_get_connection_values`.
private final class PairCollector {
    var pairs: [(String, String)] = []
}

/// The C callbacks given to libmicrohttpd. They run on MHD's per-connection threads, never on an actor.
enum MHDBridge {
    static let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, _, uploadData, uploadDataSize, conCls in
        guard let cls, let connection, let conCls, let uploadDataSize else { return .NO }
        let listener = Unmanaged<ListenerContext>.fromOpaque(cls).takeUnretainedValue()

        let state: RequestState
        if let raw = conCls.pointee {
            state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        } else {
            state = RequestState()
            conCls.pointee = Unmanaged.passRetained(state).toOpaque()
        }
        let socketContext = lastset_mhd_socket_context(connection)
        if !state.started {
            // A connection refused when it was accepted may still have got its request in: it is never handled.
            guard listener.connections.admitted(socketContext) else { return .NO }
            // First call: headers only. Refuse a bad target, or an announced oversized body, before reading any of it.
            state.started = true
            state.limit = listener.maxBodyBytes
            if let uploadLimit = listener.uploadLimit,
                let larger = uploadLimit(method.map { String(cString: $0) } ?? "", url.map { String(cString: $0) } ?? "/")
            {
                state.limit = max(state.limit, larger)
            }
            if let reason = state.badTarget {
                state.responded = true
                listener.connections.handling(socketContext)
                var response = HTTPResponse.error(400, code: .badPath, message: reason)
                response.headers["Connection"] = "close"
                return queue(response, on: connection)
            }
            if let text = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let length = Int(String(cString: text)), length > state.limit
            {
                state.tooLarge = true
                state.responded = true
                listener.connections.handling(socketContext)
                return queue(tooLarge(length, limit: state.limit), on: connection)
            }
            return .YES
        }
        if state.responded { return .YES }

        let count = uploadDataSize.pointee
        if count > 0 {
            // A chunked body has no length up front: count it and drop it once over the limit.
            if !state.tooLarge, let uploadData {
                if state.body.count + count > state.limit {
                    state.tooLarge = true
                    state.body = []
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: count) {
                        state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                    }
                }
            }
            uploadDataSize.pointee = 0
            return .YES
        }

        state.responded = true
        listener.connections.handling(socketContext)
        if state.tooLarge {
            return queue(tooLarge(nil, limit: state.limit), on: connection)
        }
        let request = HTTPRequest(
            method: method.map { String(cString: $0) } ?? "",
            path: url.map { String(cString: $0) } ?? "/",
            query: Dictionary(values(of: .GET_ARGUMENT_KIND, on: connection), uniquingKeysWith: { _, last in last }),
            headers: HTTPHeaders(values(of: .HEADER_KIND, on: connection)),
            body: state.body,
            peer: peer(of: connection, isUnix: listener.isUnix)
        )
        state.body = []
        return queue(run(listener.handler, request), on: connection, listener: listener)
    }

    /// Sees the raw request target before libmicrohttpd unescapes it (a `%00` would end the C string the access
    /// handler gets); the state it returns becomes the request's `con_cls`.
    static let uriLogger:
        @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
            cls, uri, connection in
            if let cls, let connection {
                Unmanaged<ListenerContext>.fromOpaque(cls).takeUnretainedValue().connections.requestStarted(
                    lastset_mhd_socket_context(connection))
            }
            let state = RequestState()
            if let uri,
                let found = RequestTarget.controlByte(
                    in: UnsafeBufferPointer(start: uri, count: strlen(uri)).lazy.map { UInt8(bitPattern: $0) })
            {
                state.badTarget = RequestTarget.message(offset: found.offset, byte: found.byte)
            }
            return Unmanaged.passRetained(state).toOpaque()
        }

    static let requestCompleted: MHD_RequestCompletedCallback = { cls, connection, conCls, _ in
        if let cls, let connection {
            Unmanaged<ListenerContext>.fromOpaque(cls).takeUnretainedValue().connections.answered(
                lastset_mhd_socket_context(connection))
        }
        guard let conCls, let raw = conCls.pointee else { return }
        Unmanaged<RequestState>.fromOpaque(raw).release()
        conCls.pointee = nil
    }

    /// Connection starts and closes: `ConnectionGuard` admits (or refuses) the connection and follows it.
    static let connectionNotified: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
        guard let cls, let socketContext else { return }
        let listener = Unmanaged<ListenerContext>.fromOpaque(cls).takeUnretainedValue()
        switch code {
        case .CONNECTION_NOTIFY_STARTED:
            guard let connection else { return }
            socketContext.pointee = listener.connections.opened(
                fd: lastset_mhd_connection_fd(connection), isUnix: listener.isUnix)
        case .CONNECTION_NOTIFY_CLOSED:
            listener.connections.closed(socketContext.pointee)
            socketContext.pointee = nil
        default:
            break
        }
    }

    /// Runs the async handler in a task and blocks this (MHD-owned, per-connection) thread until it answers. A detached
    /// task: a thread of the C library has no task to be a child of.
    private static func run(_ handler: @escaping HTTPHandler, _ request: HTTPRequest) -> HTTPResponse {
        let slot = ResponseSlot()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            slot.response = await handler(request)
            done.signal()
        }
        done.wait()
        return slot.response ?? .error(500, code: .internal, message: "the handler returned no response")
    }

    private static func tooLarge(_ length: Int?, limit: Int) -> HTTPResponse {
        let size = length.map { "\($0)-byte" } ?? "chunked"
        var response = HTTPResponse.error(
            413, code: .bodyTooLarge, message: "the \(size) request body exceeds the limit of \(limit) bytes")
        response.headers["Connection"] = "close"
        return response
    }

    private static func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String)] {
        let collector = PairCollector()
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            guard let cls, let key else { return .YES }
            let collector = Unmanaged<PairCollector>.fromOpaque(cls).takeUnretainedValue()
            collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
            return .YES
        }
        _ = withExtendedLifetime(collector) {
            MHD_get_connection_values(connection, kind, iterator, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }

    private static func peer(of connection: OpaquePointer, isUnix: Bool) -> HTTPPeer {
        HTTPPeer.of(socket: lastset_mhd_connection_fd(connection), isUnix: isUnix)
    }

    /// Hands MHD the next bytes of a stream (on the connection's own thread: it may block until there are some).
    private static let streamReader: MHD_ContentReaderCallback = { cls, _, buffer, max in
        guard let cls, let buffer else { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeUnretainedValue()
        guard let bytes = box.stream.read(max: max, idle: box.keepAlive) else { return -1 }  // END_OF_STREAM
        bytes.withUnsafeBytes { buffer.update(from: $0.bindMemory(to: CChar.self).baseAddress!, count: bytes.count) }
        return bytes.count
    }

    /// MHD is done with a stream's response (sent, the client gone, or the server stopping).
    private static let streamFreed: MHD_ContentReaderFreeCallback = { cls in
        guard let cls else { return }
        let box = Unmanaged<StreamBox>.fromOpaque(cls).takeRetainedValue()
        box.stream.closed()
        _ = box.listener?.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(box.stream)) }
    }

    private static func queue(
        _ response: HTTPResponse, on connection: OpaquePointer, listener: ListenerContext? = nil
    ) -> MHD_Result {
        let created: OpaquePointer?
        if let stream = response.stream {
            let box = StreamBox(stream: stream, keepAlive: listener?.keepAlive ?? .seconds(10), listener: listener)
            _ = listener?.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
            let raw = Unmanaged.passRetained(box).toOpaque()
            created = MHD_create_response_from_callback(UInt64.max, 16 * 1024, streamReader, raw, streamFreed)
            if created == nil { streamFreed(raw) }
        } else if let file = response.file {
            // MHD closes the descriptor it is given when the response is destroyed: it gets a duplicate, the
            // `HTTPResponseFile` closes its own.
            let copy = fcntl(file.descriptor, F_DUPFD_CLOEXEC, 0)
            guard copy >= 0 else { return .NO }
            created = MHD_create_response_from_fd_at_offset64(file.size, copy, 0)
            if created == nil { close(copy) }
        } else {
            created = response.body.withUnsafeBytes {
                MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        guard let created else { return .NO }
        defer { MHD_destroy_response(created) }
        for field in response.headers where field.name.lowercased() != "content-length" {
            _ = MHD_add_response_header(created, field.name, field.value)
        }
        return MHD_queue_response(connection, UInt32(clamping: response.status), created)
    }
}
