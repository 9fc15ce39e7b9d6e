import Foundation
import LastsetFormats

/// A page's definition as it travels through a fleet, published with the versions captured against it:
/// `pages/<page>/<hash>@<host>.json` (the page hash's hex digits, the publishing host), written once by that host in
/// the commit of its version and never changed. Every host can then tell what another host's version was captured
/// against, which of its registers differ from its own page, and take the fleet's definition.
public struct FleetPageDefinition: Codable, Sendable, Hashable {
    /// Marks the file (`"lastset-page-definition"`).
    public var format: String
    /// The page hash of `definition` (`sha256:<hex>`), as every version captured against it carries.
    public var pageHash: String
    /// The host that published it: the only host that writes this file.
    public var host: String
    /// The page as declared there, its "not set" convention spelt out when it came from a device's.
    public var definition: PageDefinition

    /// The `format` every file carries.
    public static let formatName = "lastset-page-definition"
    /// The repository folder of the definitions.
    public static let folder = "pages"

    /// The definition `host` publishes; nil when `definition` does not hash to `pageHash` under any "not set"
    /// convention (`matching`).
    public init?(_ definition: PageDefinition, pageHash: String, host: String) {
        guard let exact = Self.matching(definition, pageHash: pageHash) else { return nil }
        format = Self.formatName
        self.pageHash = pageHash
        self.host = host
        self.definition = exact
    }

    /// The definition whose hash is `pageHash`: `definition` itself, or — for a page compiled under a device's "not
    /// set" convention — with that convention spelt out, so that it hashes the same on a host without the device.
    public static func matching(_ definition: PageDefinition, pageHash: String) -> PageDefinition? {
        if definition.hash(unsetStyle: definition.unsetStyle) == pageHash { return definition }
        guard definition.unsetStyle == nil else { return nil }
        for style in UnsetStyle.allCases where definition.hash(unsetStyle: style) == pageHash {
            var spelt = definition
            spelt.unsetStyle = style
            return spelt
        }
        return nil
    }

    /// `<hex>@<host>.json`.
    public static func fileName(pageHash: String, host: String) -> String {
        "\(pageHash.hasPrefix("sha256:") ? String(pageHash.dropFirst(7)) : pageHash)@\(host).json"
    }

    /// Its path in the repository.
    public var path: String {
        "\(Self.folder)/\(definition.id)/\(Self.fileName(pageHash: pageHash, host: host))"
    }

    /// What a definition file's name says: the page hash and the publishing host.
    public static func parse(fileName: String) -> (pageHash: String, host: String)? {
        guard fileName.hasSuffix(".json") else { return nil }
        let parts = fileName.dropLast(5).split(separator: "@", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 2, parts[0].count == 64, parts[0].allSatisfy({ $0.isHexDigit && !$0.isUppercase }),
            SafeName.isValid(parts[1])
        else { return nil }
        return ("sha256:" + parts[0], parts[1])
    }

    /// The file's bytes: one line of JSON, keys sorted. Throws what the encoder throws: an empty file is never written
    /// in its place.
    public func encoded() throws -> Data {
        var data = try APICoding.encoder().encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a definition file and checks it is what its path names (`pages/<page>/<name>`): the page, the host, and
    /// a definition that hashes to the hash in the name.
    public static func decode(_ data: Data, pageId: String, fileName: String) -> Result<FleetPageDefinition, FleetRefusal> {
        let path = "\(folder)/\(pageId)/\(fileName)"
        guard let named = parse(fileName: fileName) else {
            return .failure(FleetRefusal(path: path, rule: .name, reason: "not the name of a page definition (<hash>@<host>.json)"))
        }
        let file: FleetPageDefinition
        do {
            file = try APICoding.decoder().decode(FleetPageDefinition.self, from: data)
        } catch {
            return .failure(
                FleetRefusal(
                    path: path, rule: .content,
                    reason: "not a page definition (\(formatName)): \(APICoding.describe(error))"))
        }
        guard file.format == formatName else {
            return .failure(
                FleetRefusal(
                    path: path, rule: .content,
                    reason: "not a page definition (\(formatName)): its format is \"\(file.format)\""))
        }
        let actual = file.definition.hash(unsetStyle: file.definition.unsetStyle)
        guard file.definition.id == pageId, file.host == named.host, file.pageHash == named.pageHash, actual == file.pageHash
        else {
            return .failure(
                FleetRefusal(
                    path: path, rule: .nameMatchesContent,
                    reason:
                        "the file holds page \"\(file.definition.id)\" hashing to \(actual) by \(file.host), not its name"))
        }
        return .success(file)
    }
}

extension FleetPageDefinition {
    /// The definition checked as the config checker checks a page of the config (types, addresses, overlaps, value
    /// rules, steps): a page another host publishes is taken here only when it would pass as this host's own config,
    /// and reads back as the very definition (same hash). Empty when it passes.
    public func configProblems() -> [ConfigProblem] {
        let file = "the fleet's definition of page \(definition.id) (\(host))"
        func problem(_ message: String) -> [ConfigProblem] {
            [ConfigProblem(file: file, path: "$", value: "", message: message)]
        }
        guard let encoded = try? APICoding.encoder().encode(definition),
            case .object(var fields) = try? StrictJSONParser.parse([UInt8](encoded), syntax: .json)
        else { return problem("the definition does not encode as JSON") }
        // The config lists identification objects in `identity`, beside the registers.
        if case .array(let objects)? = fields.removeValue(forKey: "identityObjects") {
            let registers: [JSONValue] = if case .array(let r)? = fields["identity"] { r } else { [] }
            fields["identity"] = .array(registers + objects)
        }
        var checker = ConfigChecker(file: file)
        let checked = checker.page(.object(fields), "page")
        guard checker.problems.isEmpty else { return checker.problems }
        guard let checked, checked.hash(unsetStyle: checked.unsetStyle) == pageHash else {
            return problem("the definition does not read back as itself (its hash changes): not taken")
        }
        return []
    }
}
