import Foundation
import LastsetFormats

/// The JSON encoder/decoder settings of the API (ISO 8601 dates with milliseconds, sorted keys).
public enum APICoding {
    /// Encoder for API bodies.
    public static func encoder(pretty: Bool = false) -> JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting =
            pretty ? [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes] : [.sortedKeys, .withoutEscapingSlashes]
        e.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        // A device can hold a NaN or an infinity (a live value, a "before"): it must encode, as the
        // fast `JSONWriter` writes it (valueData stays the authoritative form).
        e.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return e
    }

    /// Decoder for API bodies.
    public static func decoder() -> JSONDecoder {
        let d = JSONDecoder()
        d.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            do {
                return try TimeText.parse(text)
            } catch {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "\(error)")
            }
        }
        d.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return d
    }

    /// What a decoding error says is wrong and where (`at .definition.registers[2].type: …`): the reason a refused
    /// body or file quotes; any other error as it describes itself.
    public static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let path = c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + c.debugDescription
        @unknown default:
            return String(describing: error)
        }
    }
}
