/// Incremental HTTP/1.1 response parser: Content-Length, chunked and read-until-close bodies; skips 1xx responses.
struct ResponseParser {
    struct Failure: Error, Equatable {
        let detail: String
    }

    private enum State {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        case untilClose
        case done
    }

    private static let maxHeadBytes = 64 * 1024
    private let isHeadRequest: Bool
    private var buffer: [UInt8] = []
    private var cursor = 0
    private var state = State.head
    private var status = 0
    private var headers: [String: String] = [:]
    private var body: [UInt8] = []
    /// Where a successful (2xx) reply's body goes instead of memory (a download); false stops the exchange.
    private let sink: ((ArraySlice<UInt8>) -> Bool)?

    init(isHeadRequest: Bool = false, sink: ((ArraySlice<UInt8>) -> Bool)? = nil) {
        self.isHeadRequest = isHeadRequest
        self.sink = sink
    }

    /// Body bytes: to the sink when the reply succeeded and there is one, else kept.
    private mutating func take(_ bytes: ArraySlice<UInt8>) throws(Failure) {
        guard let sink, (200..<300).contains(status) else { return body.append(contentsOf: bytes) }
        guard sink(bytes) else { throw Failure(detail: "the body could not be stored") }
    }

    /// Adds received bytes; returns the response once it is complete.
    mutating func feed(_ bytes: some Collection<UInt8>) throws(Failure) -> HTTPClientResponse? {
        buffer.append(contentsOf: bytes)
        defer { compact() }
        return try advance()
    }

    /// The peer closed the connection: returns the response if that ends it, else fails.
    mutating func finish() throws(Failure) -> HTTPClientResponse {
        switch state {
        case .untilClose:
            try take(buffer[cursor...])
            cursor = buffer.count
            state = .done
            return response
        case .done:
            return response
        case .head where buffer.count == cursor && status == 0:
            throw Failure(detail: "the connection closed without a reply")
        default:
            throw Failure(detail: "the connection closed before the reply was complete")
        }
    }

    private var response: HTTPClientResponse { HTTPClientResponse(status: status, headers: headers, body: body) }

    private mutating func advance() throws(Failure) -> HTTPClientResponse? {
        while true {
            switch state {
            case .done:
                return response
            case .head:
                guard let end = find([13, 10, 13, 10], from: cursor) else {
                    if buffer.count - cursor > Self.maxHeadBytes { throw Failure(detail: "response head exceeds 64 KiB") }
                    return nil
                }
                let head = String(decoding: buffer[cursor..<end], as: UTF8.self)
                cursor = end + 4
                try parseHead(head)
            case .fixed(let remaining):
                let available = min(remaining, buffer.count - cursor)
                try take(buffer[cursor..<(cursor + available)])
                cursor += available
                if available == remaining {
                    state = .done
                } else {
                    state = .fixed(remaining: remaining - available)
                    return nil
                }
            case .chunkSize:
                guard let lineEnd = find([13, 10], from: cursor) else { return nil }
                let line = String(decoding: buffer[cursor..<lineEnd], as: UTF8.self)
                cursor = lineEnd + 2
                let sizeText = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces() } ?? ""
                guard let size = Int(sizeText, radix: 16), size >= 0 else {
                    throw Failure(detail: "invalid chunk size \"\(line)\"")
                }
                state = size == 0 ? .trailers : .chunkData(remaining: size)
            case .chunkData(let remaining):
                let available = min(remaining, buffer.count - cursor)
                try take(buffer[cursor..<(cursor + available)])
                cursor += available
                if available < remaining {
                    state = .chunkData(remaining: remaining - available)
                    return nil
                }
                state = .chunkDataEnd
            case .chunkDataEnd:
                guard buffer.count - cursor >= 2 else { return nil }
                guard buffer[cursor] == 13, buffer[cursor + 1] == 10 else { throw Failure(detail: "chunk not followed by CRLF") }
                cursor += 2
                state = .chunkSize
            case .trailers:
                guard let lineEnd = find([13, 10], from: cursor) else { return nil }
                let empty = lineEnd == cursor
                cursor = lineEnd + 2
                if empty { state = .done }
            case .untilClose:
                try take(buffer[cursor...])
                cursor = buffer.count
                return nil
            }
        }
    }

    private mutating func parseHead(_ head: String) throws(Failure) {
        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusLine = lines.isEmpty ? "" : lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), parts[1].count == 3, let code = Int(parts[1]), code >= 100 else {
            throw Failure(detail: "invalid status line \"\(statusLine)\"")
        }
        var fields: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure(detail: "invalid header line \"\(line)\"") }
            let name = line[..<colon].lowercased()
            let value = String(line[line.index(after: colon)...].trimmingSpaces())
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        if code < 200 {
            state = .head  // interim (e.g. 100 Continue): the real reply follows
            return
        }
        status = code
        headers = fields
        if isHeadRequest || code == 204 || code == 304 {
            state = .done
        } else if let encoding = fields["transfer-encoding"], encoding.lowercased().contains("chunked") {
            state = .chunkSize
        } else if let lengthText = fields["content-length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw Failure(detail: "invalid Content-Length \"\(lengthText)\"")
            }
            state = .fixed(remaining: length)
        } else {
            state = .untilClose
        }
    }

    private func find(_ needle: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= needle.count, start <= buffer.count - needle.count else { return nil }
        var index = start
        while index <= buffer.count - needle.count {
            if buffer[index] == needle[0] {
                var matched = true
                for offset in 1..<needle.count where buffer[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }

    private mutating func compact() {
        if cursor > 65_536 && cursor * 2 > buffer.count {
            buffer.removeFirst(cursor)
            cursor = 0
        }
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
