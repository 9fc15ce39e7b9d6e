import Foundation
import LastsetFormats

/// The legacy iOS app's saved settings: an NSKeyedArchiver archive (binary or XML plist) whose root is
/// an NSArray/NSMutableArray of `SARegister` objects (`address`, `valueData`, `lastDate`, `name`,
/// `registerId`). Decoded with `PropertyListReader` and `KeyedArchive` (never NSKeyedUnarchiver), mapped
/// onto a page like a capture, and written back for the app by `archive(for:page:)`.
public enum IOSArchive {
    /// The class name the app archives its registers under.
    public static let registerClass = "SARegister"

    /// Whether the bytes look like such an archive (a property list: binary magic or XML).
    public static func recognises(_ bytes: [UInt8]) -> Bool { PropertyListReader.looksLikePropertyList(bytes) }

    /// The archive's registers, in archive order; every entry that cannot be decoded is a problem.
    public static func registers(_ bytes: [UInt8]) throws(IOSArchiveError) -> [ArchivedRegister] {
        let (registers, problems) = try decode(bytes)
        guard problems.isEmpty else { throw IOSArchiveError(problems: problems) }
        return registers
    }

    /// Decodes what can be decoded and names every entry that cannot; throws only when the archive as a
    /// whole is unusable (not a plist, not a keyed archive, root not an array).
    static func decode(_ bytes: [UInt8]) throws(IOSArchiveError) -> ([ArchivedRegister], [IOSArchiveProblem]) {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(PropertyListReader.parse(bytes))
        } catch {
            throw IOSArchiveError("not a readable iOS archive: \(error.reason)")
        }
        let items = try rootItems(of: archive)
        var memo: [Int: KeyedArchive.Value] = [:]
        var registers: [ArchivedRegister] = []
        var problems: [IOSArchiveProblem] = []
        for (i, item) in items.enumerated() {
            guard case .uid(let u) = item, u < UInt64(archive.objects.count) else {
                problems.append(IOSArchiveProblem(entry: i, registerId: nil, message: "not a reference to an archived object"))
                continue
            }
            let value: KeyedArchive.Value
            do {
                value = try archive.resolve(Int(u), stack: [archive.root], memo: &memo)
            } catch {
                problems.append(IOSArchiveProblem(entry: i, registerId: nil, message: error.reason))
                continue
            }
            guard case .object(let className, let fields) = value,
                className == registerClass || className.hasSuffix("." + registerClass)
            else {
                problems.append(
                    IOSArchiveProblem(entry: i, registerId: nil, message: "is \(value.kindName), not an \(registerClass)"))
                continue
            }
            switch register(entry: i, fields) {
            case .success(let register): registers.append(register)
            case .failure(let entryProblems): problems += entryProblems.problems
            }
        }
        return (registers, problems)
    }

    /// The references in the root array's `NS.objects`: the root must be an NSArray or NSMutableArray.
    private static func rootItems(of archive: KeyedArchive) throws(IOSArchiveError) -> [PropertyList] {
        do throws(PropertyListError) {
            guard case .dictionary(let fields) = try archive.object(archive.root) else {
                throw PropertyListError("the root object is not an NSArray")
            }
            let (name, _) = try archive.className(of: fields)
            guard name == "NSArray" || name == "NSMutableArray" else {
                throw PropertyListError("the root object is an \(name), not an NSArray of \(registerClass)")
            }
            guard case .array(let list)? = fields["NS.objects"] else {
                throw PropertyListError("the root \(name) has no NS.objects list")
            }
            return list
        } catch {
            throw IOSArchiveError("not an archive of \(registerClass) objects: \(error.reason)")
        }
    }

    /// One `SARegister`'s fields as a register; every field of the wrong kind is a problem of the entry.
    private static func register(entry i: Int, _ fields: [String: KeyedArchive.Value]) -> Result<
        ArchivedRegister, IOSArchiveError
    > {
        var entryProblems: [String] = []
        func text(_ key: String) -> String? {
            switch fields[key] {
            case nil, .null?: return nil
            case .string(let s)?: return s
            case let other?:
                entryProblems.append("\(key) is \(other.kindName), expected a string")
                return nil
            }
        }
        let registerId = text("registerId")
        let name = text("name")
        var address: Int?
        switch fields["address"] {
        case nil, .null?: break
        case .integer(let a)?: address = Int(a)
        case let other?: entryProblems.append("address is \(other.kindName), expected an integer")
        }
        var valueData: [UInt8]?
        switch fields["valueData"] {
        case nil, .null?: break
        case .data(let d)?: valueData = d
        case let other?: entryProblems.append("valueData is \(other.kindName), expected data")
        }
        var lastDate: Date?
        switch fields["lastDate"] {
        case nil, .null?: break
        case .date(let t)? where t.isFinite && abs(t) < 1e11: lastDate = Date(timeIntervalSinceReferenceDate: t)
        case .date(let t)?: entryProblems.append("lastDate \(t) is not a usable time")
        case let other?: entryProblems.append("lastDate is \(other.kindName), expected an NSDate")
        }
        guard entryProblems.isEmpty else {
            return .failure(
                IOSArchiveError(
                    problems: entryProblems.map { IOSArchiveProblem(entry: i, registerId: registerId, message: $0) }))
        }
        return .success(
            ArchivedRegister(
                index: i, registerId: registerId, name: name, address: address, valueData: valueData, lastDate: lastDate))
    }

    /// The template an archive gives for `page`: every registerId mapped to the page's register (address
    /// and length must agree), nil values and "not set" values skipped, the rest validated as a capture
    /// validates. `identity` stands in for the identity registers the archive does not hold; `file` names
    /// the archive in the provenance. Throws with every problem found.
    public static func template(
        archive bytes: [UInt8], page: CompiledPage, identity: [RecordedValue], file: String, who: String?,
        importedAt: Date, identityNote: String? = nil
    ) throws(IOSArchiveError) -> Template {
        var (records, problems) = try decode(bytes)
        let declared = page.identity
        if !declared.isEmpty && identity.isEmpty {
            problems.insert(
                IOSArchiveProblem(
                    entry: nil, registerId: nil,
                    message:
                        "page \"\(page.id)\" declares identity registers (\(declared.map(\.registerId).joined(separator: ", "))) and an iOS archive holds none: give them (--identity \(declared[0].registerId)=VALUE) or read them from a reference device (--identity-from DEVICE)"
                ), at: 0)
        }
        var seen: [String: Int] = [:]
        var entries: [(Int, TemplateEntry)] = []
        var skipped: [(Int, SkippedRegister)] = []
        var newest: Date?
        for record in records {
            func problem(_ message: String) {
                problems.append(IOSArchiveProblem(entry: record.index, registerId: record.registerId, message: message))
            }
            let register: CompiledRegister
            switch match(record, on: page, seen: &seen) {
            case .success(let matched): register = matched
            case .failure(let refusal):
                problem(refusal.message)
                continue
            }
            if let d = record.lastDate { newest = max(newest ?? d, d) }
            switch place(record, as: register, on: page) {
            case .entry(let entry): entries.append((register.position, entry))
            case .skipped(let reason):
                skipped.append(
                    (
                        register.position,
                        SkippedRegister(registerId: register.registerId, address: register.address, reason: reason)
                    ))
            case .problem(let message): problem(message)
            }
        }
        guard problems.isEmpty else {
            throw IOSArchiveError(problems: problems.sorted { ($0.entry ?? -1) < ($1.entry ?? -1) })
        }
        // An entry without a lastDate takes the archive's newest one (when the app last saved), or the import time.
        let capturedAt = newest ?? importedAt
        for i in entries.indices where entries[i].1.lastDate == .distantPast { entries[i].1.lastDate = capturedAt }
        let provenance =
            "imported from iOS archive \(file) (\(records.count) entr\(records.count == 1 ? "y" : "ies"))"
            + (identityNote.map { "; \($0)" } ?? "")
        return Template(
            pageId: page.id, pageHash: page.hash, version: 0, capturedAt: capturedAt, capturedBy: who,
            source: TemplateSource(deviceId: nil, endpoint: "ios-archive:\(file)", unit: 0, identity: identity),
            entries: entries.sorted { $0.0 < $1.0 }.map(\.1), skipped: skipped.sorted { $0.0 < $1.0 }.map(\.1),
            provenance: provenance
        ).roundedToMilliseconds()
    }

    /// Why an archive entry cannot be matched to a register of the page.
    private struct Mismatch: Error {
        var message: String
    }

    /// The page's register the entry names: its registerId must be on the page (once) and its address agree.
    private static func match(_ record: ArchivedRegister, on page: CompiledPage, seen: inout [String: Int]) -> Result<
        CompiledRegister, Mismatch
    > {
        guard let id = record.registerId else {
            return .failure(
                Mismatch(
                    message: "registerId is nil, so the entry cannot be matched to a register"
                        + (record.address.map { " (address \($0))" } ?? "")))
        }
        guard let register = page.register(id) else {
            return .failure(Mismatch(message: "page \"\(page.id)\" has no register with this registerId"))
        }
        if let first = seen[id] {
            return .failure(Mismatch(message: "registerId appears a second time (first at entry \(first))"))
        }
        seen[id] = record.index
        let def = register.definition
        guard let address = record.address else {
            return .failure(Mismatch(message: "address is missing; the page has \(id) at \(def.address)"))
        }
        guard address == def.address else {
            return .failure(Mismatch(message: "address is \(address); the page has \(id) at \(def.address)"))
        }
        return .success(register)
    }

    /// What an entry matched to its register becomes.
    private enum Placement {
        /// A template entry.
        case entry(TemplateEntry)
        /// Skipped, as a capture skips it.
        case skipped(SkipReason)
        /// Refused: its value does not fit the register.
        case problem(String)
    }

    /// The entry's value judged as a capture judges it: identity/communication and read-only registers are never
    /// cloned, a nil value is "not set", the rest must be archivable.
    private static func place(_ record: ArchivedRegister, as register: CompiledRegister, on page: CompiledPage)
        -> Placement
    {
        let def = register.definition
        if case .skipped(let reason) = register.eligibility { return .skipped(reason) }
        guard let data = record.valueData else { return .skipped(.unset) }
        guard data.count == def.length * 2 else {
            return .problem(
                "valueData is \(data.count) bytes; \(def.registerId) is \(def.type) (\(def.length * 2) bytes, \(def.length) register\(def.length == 1 ? "" : "s"))"
            )
        }
        let words = [UInt16](bigEndianBytes: data)
        switch page.classify(words, of: register) {
        case .skip(let reason): return .skipped(reason)
        case .invalid(let rule):
            let value = RegisterCodec.decode(words, as: def)
            return .problem("value \(value) (0x\(data.hexString)) \(rule)")
        case .archive:
            return .entry(TemplateEntry(register: register, words: words, lastDate: record.lastDate ?? .distantPast))
        }
    }

    /// Identity values for `page` from `NAME=VALUE` text: text for string registers, hex for raw,
    /// decimal or `0x` hex for numbers. Every declared identity register needs one; unknown names are errors.
    public static func identityValues(page: CompiledPage, given: [(String, String)]) throws(IOSArchiveError)
        -> [RecordedValue]
    {
        let declared = page.identity
        var problems: [IOSArchiveProblem] = []
        var values: [String: String] = [:]
        for (name, value) in given {
            if !declared.contains(where: { $0.registerId == name }) {
                problems.append(
                    IOSArchiveProblem(
                        entry: nil, registerId: nil,
                        message: "page \"\(page.id)\" has no identity register \"\(name)\""
                            + (declared.isEmpty
                                ? " (it declares none)" : " (it has: \(declared.map(\.registerId).joined(separator: ", ")))")))
            } else if values[name] != nil {
                problems.append(IOSArchiveProblem(entry: nil, registerId: nil, message: "identity \"\(name)\" is given twice"))
            } else {
                values[name] = value
            }
        }
        var out: [RecordedValue] = []
        for reg in declared {
            guard let text = values[reg.registerId] else {
                if !given.isEmpty {
                    problems.append(
                        IOSArchiveProblem(
                            entry: nil, registerId: nil,
                            message:
                                "identity register \"\(reg.registerId)\" (\(reg.type)) has no value; give \(reg.registerId)=VALUE"
                        ))
                }
                continue
            }
            let def = reg.definition
            let value: RegisterValue?
            switch reg.type {
            case .string: value = .text(text)
            case .raw:
                value = [UInt8](hexString: text.lowercased().hasPrefix("0x") ? String(text.dropFirst(2)) : text).map(
                    RegisterValue.bytes)
            case .f32, .f64: value = Double(text).map(RegisterValue.float)
            default:
                if let i = Int64(text) {
                    value = i >= 0 ? .unsigned(UInt64(i)) : .signed(i)
                } else if text.lowercased().hasPrefix("0x"), let u = UInt64(text.dropFirst(2), radix: 16) {
                    value = .unsigned(u)
                } else {
                    value = nil
                }
            }
            do throws(CodecError) {
                guard let value else {
                    throw CodecError(registerId: reg.registerId, value: text, reason: "not a value of \(reg.type)")
                }
                let words = try RegisterCodec.encode(value, as: def)
                out.append(
                    RecordedValue(
                        registerId: reg.registerId, address: reg.address, valueData: words.bigEndianBytes.hexString,
                        value: RegisterCodec.decode(words, as: def)))
            } catch {
                problems.append(
                    IOSArchiveProblem(
                        entry: nil, registerId: nil,
                        message: "identity \"\(reg.registerId)\" = \(JSONValue.quote(text)): \(error.reason)"))
            }
        }
        guard problems.isEmpty else { throw IOSArchiveError(problems: problems) }
        return out
    }

    /// The archive the legacy app loads for a template: an NSMutableArray of SARegister, one per page
    /// register in page order (a register the template skipped is archived with a nil valueData), then
    /// any entry whose register is no longer on the page. Binary plist, as the app writes it.
    public static func archive(for template: Template, page: CompiledPage) -> [UInt8] {
        var registers: [ArchivedRegister] = []
        var byId: [String: TemplateEntry] = [:]
        for e in template.entries { byId[e.registerId] = e }
        let skipped = Set(template.skipped.map(\.registerId))
        for def in page.definition.registers {
            if let e = byId.removeValue(forKey: def.registerId) {
                registers.append(
                    ArchivedRegister(
                        index: registers.count, registerId: e.registerId, name: def.displayName, address: e.address,
                        valueData: [UInt8](hexString: e.valueData) ?? [], lastDate: e.lastDate))
            } else if skipped.contains(def.registerId) {
                registers.append(
                    ArchivedRegister(
                        index: registers.count, registerId: def.registerId, name: def.displayName, address: def.address,
                        valueData: nil, lastDate: nil))
            }
        }
        for e in template.entries where byId[e.registerId] != nil {
            registers.append(
                ArchivedRegister(
                    index: registers.count, registerId: e.registerId, name: e.registerId, address: e.address,
                    valueData: [UInt8](hexString: e.valueData) ?? [], lastDate: e.lastDate))
        }
        return PropertyListWriter.binary(plist(for: registers))
    }

    /// The keyed-archive plist of `registers` (the layout `[NSKeyedArchiver archiveRootObject:toFile:]`
    /// writes for an NSMutableArray of SARegister).
    public static func plist(for registers: [ArchivedRegister], mutable: Bool = true) -> PropertyList {
        // Class descriptions go last; count the objects before them.
        var total = 2
        for r in registers {
            total +=
                1 + (r.valueData == nil ? 0 : 1) + (r.lastDate == nil ? 0 : 1) + (r.name == nil ? 0 : 1)
                + (r.registerId == nil ? 0 : 1)
        }
        let registerClass = total
        let dateClass = total + 1
        let arrayClass = total + 2
        var objects: [PropertyList] = [.string("$null"), .string("placeholder")]
        var members: [PropertyList] = []
        for r in registers {
            let me = objects.count
            members.append(.uid(UInt64(me)))
            objects.append(.string("placeholder"))
            func ref(_ value: PropertyList?) -> PropertyList {
                guard let value else { return .uid(0) }
                objects.append(value)
                return .uid(UInt64(objects.count - 1))
            }
            var fields: [String: PropertyList] = ["$class": .uid(UInt64(registerClass))]
            fields["address"] = .integer(Int64(r.address ?? 0))
            fields["valueData"] = ref(r.valueData.map(PropertyList.data))
            fields["lastDate"] = ref(
                r.lastDate.map {
                    .dictionary(["NS.time": .real($0.timeIntervalSinceReferenceDate), "$class": .uid(UInt64(dateClass))])
                })
            fields["name"] = ref(r.name.map(PropertyList.string))
            fields["registerId"] = ref(r.registerId.map(PropertyList.string))
            objects[me] = .dictionary(fields)
        }
        objects[1] = .dictionary(["NS.objects": .array(members), "$class": .uid(UInt64(arrayClass))])
        objects.append(KeyedArchive.classDescription([Self.registerClass, "NSObject"]))
        objects.append(KeyedArchive.classDescription(["NSDate", "NSObject"]))
        objects.append(
            KeyedArchive.classDescription(mutable ? ["NSMutableArray", "NSArray", "NSObject"] : ["NSArray", "NSObject"]))
        return KeyedArchive.envelope(objects: objects)
    }
}

extension IOSArchive {
    /// The page `fuzzEntry` maps archives onto (every register kind the mapping distinguishes).
    static let fuzzPage = CompiledPage(
        PageDefinition(
            id: "fuzz", identity: [IdentityRegister(registerId: "model", address: 0, type: .string(8))],
            registers: [
                RegisterDefinition(registerId: "a", address: 100, type: .u16, enum: [0, 1, 2]),
                RegisterDefinition(registerId: "b", address: 101, type: .s16, min: -200, max: 900),
                RegisterDefinition(registerId: "c", address: 102, type: .f32),
                RegisterDefinition(registerId: "d", address: 110, type: .string(16)),
                RegisterDefinition(registerId: "e", address: 200, type: .u16, clone: false),
            ]))

    /// libFuzzer entry point (Fuzz/): reads `bytes` as a plist and as an iOS archive, maps it onto a fixed
    /// page and writes the result back. Any input must end in a value or a thrown error, never a trap.
    public static func fuzzEntry(_ bytes: [UInt8]) {
        _ = try? PropertyListReader.parse(bytes)
        let identity = [RecordedValue(registerId: "model", address: 0, valueData: "5052532D32303000", value: .text("PRS-200"))]
        guard
            let template = try? template(
                archive: bytes, page: fuzzPage, identity: identity, file: "fuzz", who: nil,
                importedAt: Date(timeIntervalSince1970: 0))
        else { return }
        let again = archive(for: template, page: fuzzPage)
        // What we write must read back.
        guard (try? registers(again)) != nil else { preconditionFailure("an exported archive did not read back") }
    }
}
