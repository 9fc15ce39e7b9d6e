import Foundation

/// The on-disk form of a template: the template plus a checksum over its canonical encoding.
public enum TemplateFile {
    private struct Envelope: Codable {
        var format: String
        var checksum: String
        var template: Template
    }

    /// Format tag written in every file.
    public static let format = "lastset-template"

    private static func canonical(_ template: Template) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        return try encoder.encode(template)
    }

    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let c = try decoder.singleValueContainer()
            let text = try c.decode(String.self)
            guard let date = TimeText.parseISO8601(text) else {
                throw DecodingError.dataCorruptedError(in: c, debugDescription: "bad date \"\(text)\"")
            }
            return date
        }
        return decoder
    }

    /// Encodes a template (pretty JSON, sorted keys) with its checksum.
    public static func encode(_ template: Template) throws -> Data {
        // Round-trip once so the checksum covers exactly what a later decode will re-encode
        // (dates are stored to the millisecond).
        let stable = try decoder().decode(Template.self, from: canonical(template))
        let checksum = "sha256:" + SHA256.hex(try canonical(stable))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var c = encoder.singleValueContainer()
            try c.encode(TimeText.iso8601(date))
        }
        var data = try encoder.encode(Envelope(format: format, checksum: checksum, template: stable))
        data.append(0x0A)
        return data
    }

    /// Decodes a file and checks its format tag, schema version and checksum.
    public static func decode(_ data: Data) throws(TemplateFileError) -> Template {
        let envelope: Envelope
        do {
            envelope = try decoder().decode(Envelope.self, from: data)
        } catch {
            throw TemplateFileError(reason: "not a readable template file: \(describe(error))")
        }
        guard envelope.format == format else {
            throw TemplateFileError(reason: "format is \"\(envelope.format)\", expected \"\(format)\"")
        }
        guard envelope.template.schemaVersion == Template.currentSchemaVersion else {
            throw TemplateFileError(reason: "schema version \(envelope.template.schemaVersion) is not supported")
        }
        let actual: String
        do {
            actual = "sha256:" + SHA256.hex(try canonical(envelope.template))
        } catch {
            throw TemplateFileError(reason: "cannot re-encode: \(error)")
        }
        guard actual == envelope.checksum else {
            throw TemplateFileError(reason: "checksum mismatch (file says \(envelope.checksum), content is \(actual))")
        }
        return envelope.template
    }

    private static func describe(_ error: any Error) -> String {
        guard let e = error as? DecodingError else { return String(describing: error) }
        switch e {
        case .dataCorrupted(let c), .keyNotFound(_, let c), .typeMismatch(_, let c), .valueNotFound(_, let c):
            let path = c.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
            return (path.isEmpty ? "" : "at \(path): ") + c.debugDescription
        @unknown default:
            return String(describing: e)
        }
    }
}

/// A template file that cannot be used: unreadable, wrong format, or checksum mismatch.
public struct TemplateFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public init(reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// ISO 8601 timestamps with milliseconds, UTC.
public enum TimeText {
    /// e.g. `2026-11-29T14:05:00.123Z`.
    public static func iso8601(_ date: Date) -> String {
        let millis = (date.timeIntervalSince1970 * 1000).rounded()
        let seconds = (millis / 1000).rounded(.down)
        let whole = Date(timeIntervalSince1970: seconds)
        let ms = Int(millis - seconds * 1000)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        let base = f.string(from: whole)  // ends in "Z"
        return String(base.dropLast()) + String(format: ".%03dZ", ms)
    }

    /// Parses the form written by `iso8601` (and plain RFC 3339 without fraction).
    public static func parseISO8601(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }
}
