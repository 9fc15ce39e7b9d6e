import Foundation
import LastsetCore
import LastsetFormats

/// An archived or imported template file through `TemplateFile.decode` (format tag, checksum, schema, body) and
/// `TemplateFile.summary`, as the archive reads every file under the data directory and `POST …/templates` an import.
///
/// A random edit almost never keeps the SHA-256 right, so each input is also read as `SUMMARY\nBODY` and sealed
/// with a correct checksum first: that way the fuzzer reaches the summary and template decoding behind it.
public enum TemplateFileFuzzTarget: FuzzTarget {
    /// `templateFile`.
    public static let name = "templateFile"

    /// Decodes the bytes as they are and sealed; a file that decodes must encode and decode again.
    public static func run(_ data: [UInt8]) {
        check(Data(data))
        check(sealed(data))
    }

    private static func check(_ bytes: Data) {
        _ = try? TemplateFile.summary(bytes)
        guard let template = try? TemplateFile.decode(bytes) else { return }
        let again = try? TemplateFile.decode(TemplateFile.encode(template))
        precondition(again != nil, "a template that decodes must survive encode + decode")
    }

    /// `SUMMARY\nBODY` as a template file with the right checksum (the file format of docs/ARCHITECTURE.md).
    static func sealed(_ input: [UInt8]) -> Data {
        let newline = input.firstIndex(of: 0x0A) ?? input.endIndex
        let summary = input[..<newline]
        let body = newline < input.endIndex ? input[(newline + 1)...] : []
        var sha = SHA256()
        sha.update(summary)
        sha.update(CollectionOfOne(0x0A))
        sha.update(body)
        var out = Data("{\"format\":\"lastset-template\",\"checksum\":\"sha256:".utf8)
        out.append(contentsOf: sha.finalize().hexString.lowercased().utf8)
        out.append(contentsOf: "\",\"summary\":".utf8)
        out.append(contentsOf: summary)
        out.append(contentsOf: "}\n".utf8)
        out.append(contentsOf: body)
        out.append(0x0A)
        return out
    }
}
