/// Checks on the raw request target (path and query as sent, before libmicrohttpd unescapes it).
///
/// libmicrohttpd decodes `%00` into a NUL that ends the C string the handler receives, so
/// `/v1/pages/heating/apply%00/capture` would be routed as `/v1/pages/heating/apply`. A control byte has no
/// business in any of the API's paths or query values: the request is refused before it is routed.
public enum RequestTarget {
    /// The first control byte (0x00–0x1F, 0x7F) in `target`, raw or percent-encoded, with its offset; nil if none.
    public static func controlByte(in target: some Collection<UInt8>) -> (offset: Int, byte: UInt8)? {
        let bytes = Array(target)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x20 || b == 0x7F { return (i, b) }
            if b == UInt8(ascii: "%"), i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) {
                let decoded = high << 4 | low
                if decoded < 0x20 || decoded == 0x7F { return (i, decoded) }
                i += 3
                continue
            }
            i += 1
        }
        return nil
    }

    /// The message of the 400 `bad_path` answer.
    static func message(offset: Int, byte: UInt8) -> String {
        let hexText = String(byte, radix: 16, uppercase: true)
        return "the request target has a control byte (0x\(hexText.count == 1 ? "0" : "")\(hexText)) at offset \(offset);"
            + " NUL and other control bytes are never allowed in a path or query"
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
