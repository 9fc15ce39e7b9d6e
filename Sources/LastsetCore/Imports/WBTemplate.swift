import Foundation
import LastsetFormats

/// Imports a wb-mqtt-serial device template (JSON with comments, as users keep them for their devices)
/// as page definitions: the holding-register `device.parameters` (an object keyed by id, or an array of
/// objects with `id`), one page per parameter `group` (in the groups' `order`) plus one for ungrouped
/// parameters, registers in each parameter's `order`. What is not imported (channels, setup, coils,
/// input registers, translations, conditions, enum titles, …) is listed, never silently dropped.
public enum WBTemplate {
    /// The pages and what was left out.
    public struct Imported: Sendable, Hashable {
        /// The pages, in group order (ungrouped parameters first).
        public var pages: [PageDefinition]
        /// One line per part of the template that was not imported, with its JSON path.
        public var notImported: [String]
        /// What the import assumed.
        public var assumptions: [String]
    }

    /// A problem that stops the import: the JSON path, the bad value and what is wrong.
    public struct Problem: Hashable, Sendable, CustomStringConvertible {
        /// e.g. `device.parameters.baud_rate.address`.
        public var path: String
        /// The bad value as JSON, or empty.
        public var value: String
        /// What is wrong.
        public var message: String
        /// `path: message (got value)`.
        public var description: String { value.isEmpty ? "\(path): \(message)" : "\(path): \(message) (got \(value))" }
    }

    /// Every problem found.
    public struct ImportError: Error, Hashable, Sendable, CustomStringConvertible {
        /// The problems, in template order.
        public var problems: [Problem]
        /// One per line.
        public var description: String { problems.map(\.description).joined(separator: "\n") }
    }

    /// Keys of `device` that describe the device rather than its settings: not imported, not reported.
    static let deviceInfoKeys: Set<String> = [
        "name", "id", "max_read_registers", "max_write_registers", "response_timeout_ms", "frame_timeout_ms",
        "guard_interval_us", "device_max_fail_cycles", "min_read_registers", "max_reg_hole", "max_bit_hole",
        "enable_wb_continuous_read", "slave_id", "protocol", "groups", "parameters",
    ]
    /// Top-level keys that describe the template: not imported, not reported.
    static let templateInfoKeys: Set<String> = ["device_type", "title", "group", "device", "deprecated", "hw", "ui_options"]
    /// Parameter keys that are imported.
    static let parameterKeys: Set<String> = [
        "id", "title", "address", "reg_type", "format", "scale", "min", "max", "default", "order", "group", "enum",
        "readonly", "word_order", "byte_order", "description",
    ]

    /// Imports the template text; page ids are `<pageId>` and `<pageId>-<group id>`.
    public static func pages(from data: Data, pageId: String) throws(ImportError) -> Imported {
        var report = Report()
        let (top, device) = try parse(data, pageId: pageId, into: &report)
        report.notImported = leftOutKeys(top: top, device: device)
        let groups = readGroups(device, into: &report)
        var byGroup: [String: [PlacedRegister]] = [:]
        for p in readParameters(device, into: &report) {
            guard let placed = register(of: p, groups: groups, pageId: pageId, into: &report) else { continue }
            byGroup[placed.group, default: []].append(placed)
        }
        let pages = assemble(byGroup, groups: groups, title: title(of: top), pageId: pageId, into: &report)
        // Overlaps within a page, as the config checker would report them.
        for page in pages {
            let sorted = page.registers.sorted { $0.address < $1.address }
            for (a, b) in zip(sorted, sorted.dropFirst()) where b.address < a.endAddress {
                report.fail(
                    "device.parameters", .string(b.registerId),
                    "\"\(b.registerId)\" (\(b.address)...\(b.endAddress - 1)) overlaps \"\(a.registerId)\" on page \(page.id)")
            }
        }
        if pages.isEmpty && report.problems.isEmpty {
            report.fail("device.parameters", nil, "no holding-register parameter to import")
        }
        guard report.problems.isEmpty else { throw ImportError(problems: report.problems) }
        let assumptions = [
            "addresses are the template's (0-based PDU addresses); min, max and default are raw register values (before scale)"
        ]
        return Imported(pages: pages, notImported: report.notImported, assumptions: assumptions)
    }

    /// What an import found so far: the problems (in template order) and what it leaves out.
    struct Report {
        var problems: [Problem] = []
        var notImported: [String] = []

        mutating func fail(_ path: String, _ value: JSONValue?, _ message: String) {
            problems.append(Problem(path: path, value: value?.abbreviated() ?? "", message: message))
        }
    }

    /// A group of `device.groups`: its title and where it sorts.
    struct Group {
        var title: String?
        var order: Double
        var index: Int
    }

    /// A parameter of `device.parameters`: its id, JSON path, fields and position in the template.
    struct Parameter {
        var id: String
        var path: String
        var fields: [String: JSONValue]
        var index: Int
    }

    /// A parameter made a register, with the group (page) it goes to and where it sorts there.
    struct PlacedRegister {
        var group: String
        var order: Double
        var index: Int
        var register: RegisterDefinition
    }

    /// The template's top object and its `device` object; throws when the text is not JSON5 or lacks either.
    private static func parse(_ data: Data, pageId: String, into report: inout Report) throws(ImportError)
        -> (top: [String: JSONValue], device: [String: JSONValue])
    {
        let root: JSONValue
        do throws(JSONSyntaxError) {
            root = try StrictJSONParser.parse([UInt8](data), syntax: .json5)
        } catch {
            throw ImportError(problems: [Problem(path: error.path, value: "", message: "not valid JSON with comments: \(error)")])
        }
        if !SafeName.isValid(pageId) {
            report.fail(
                "--page", .string(pageId),
                "page id must match [A-Za-z0-9][A-Za-z0-9._-]* and be at most \(SafeName.maxLength) characters")
        }
        guard case .object(let top) = root else {
            throw ImportError(problems: [Problem(path: "$", value: root.abbreviated(), message: "a template is an object")])
        }
        guard case .object(let device)? = top["device"] else {
            throw ImportError(problems: [
                Problem(
                    path: "device", value: top["device"]?.abbreviated() ?? "", message: "a template needs a \"device\" object")
            ])
        }
        return (top, device)
    }

    /// The template's and the device's keys that are not imported, each with why.
    private static func leftOutKeys(top: [String: JSONValue], device: [String: JSONValue]) -> [String] {
        var notImported: [String] = []
        for key in top.keys.sorted() where !templateInfoKeys.contains(key) {
            notImported.append("\(key): not a part of a device template Lastset knows")
        }
        for key in device.keys.sorted() where !deviceInfoKeys.contains(key) {
            let what: String
            switch key {
            case "channels": what = "channels are live values, not settings"
            case "setup":
                what =
                    "setup writes are not settings a capture reads back (write them as the page's beforeWrite steps if they must run before a replay)"
            case "translations": what = "translations are not imported (the English titles are used)"
            default: what = "not a part of a device template Lastset knows"
            }
            let count: String
            switch device[key] {
            case .array(let a)?: count = " (\(a.count) entr\(a.count == 1 ? "y" : "ies"))"
            case .object(let o)?: count = " (\(o.count) entr\(o.count == 1 ? "y" : "ies"))"
            default: count = ""
            }
            notImported.append("device.\(key)\(count): \(what)")
        }
        return notImported
    }

    /// `device.groups`: id → title and order.
    private static func readGroups(_ device: [String: JSONValue], into report: inout Report) -> [String: Group] {
        var groups: [String: Group] = [:]
        guard case .array(let list)? = device["groups"] else { return groups }
        for (i, g) in list.enumerated() {
            guard case .object(let f) = g, case .string(let id)? = f["id"] else {
                report.fail("device.groups[\(i)]", g, "a group needs an \"id\" string")
                continue
            }
            var title: String?
            if case .string(let t)? = f["title"] { title = t }
            groups[id] = Group(title: title, order: f["order"]?.number ?? Double(i), index: i)
        }
        return groups
    }

    /// `device.parameters`: an object keyed by id (the text's key order is lost; `order` decides) or an array.
    private static func readParameters(_ device: [String: JSONValue], into report: inout Report) -> [Parameter] {
        var params: [Parameter] = []
        switch device["parameters"] {
        case .object(let o)?:
            for (i, key) in o.keys.sorted().enumerated() {
                guard case .object(let f) = o[key]! else {
                    report.fail("device.parameters.\(key)", o[key], "a parameter is an object")
                    continue
                }
                params.append(Parameter(id: key, path: "device.parameters.\(key)", fields: f, index: i))
            }
        case .array(let a)?:
            for (i, item) in a.enumerated() {
                guard case .object(let f) = item else {
                    report.fail("device.parameters[\(i)]", item, "a parameter is an object")
                    continue
                }
                guard case .string(let id)? = f["id"] else {
                    report.fail("device.parameters[\(i)].id", f["id"], "a parameter in an array needs an \"id\" string")
                    continue
                }
                params.append(Parameter(id: id, path: "device.parameters[\(i)]", fields: f, index: i))
            }
        case nil:
            report.fail("device.parameters", nil, "the template has no parameters (settings) to import")
        case let other?:
            report.fail("device.parameters", other, "parameters must be an object or an array")
        }
        return params
    }

    /// The parameter as a register of the page of its group; nil when it is not imported (a problem, or left out).
    private static func register(of p: Parameter, groups: [String: Group], pageId: String, into report: inout Report)
        -> PlacedRegister?
    {
        let f = p.fields
        for key in f.keys.sorted() where !parameterKeys.contains(key) {
            report.notImported.append(
                "\(p.path).\(key): \(key == "condition" ? "conditions are not evaluated (the parameter is always on the page)" : key == "enum_titles" ? "enum titles are not imported" : "not imported")"
            )
        }
        guard isHolding(p, into: &report) else { return nil }
        let address = address(of: p, into: &report)
        guard let type = type(of: p, into: &report) else { return nil }
        func number(_ key: String) -> Double? {
            guard let v = f[key] else { return nil }
            guard let n = v.number, n.isFinite else {
                report.fail("\(p.path).\(key)", v, "must be a number")
                return nil
            }
            return n
        }
        /// `min`/`max`, exactly as written (a u64 bound is not rounded to a Double).
        func bound(_ key: String) -> ExactNumber? {
            number(key) != nil ? f[key].flatMap { ExactNumber($0) } : nil
        }
        var enumValues: [ExactNumber]?
        if case .array(let list)? = f["enum"] {
            enumValues = list.compactMap { ExactNumber($0) }.filter(\.isFinite)
            if enumValues!.count != list.count { report.fail("\(p.path).enum", f["enum"], "enum values must be numbers") }
        }
        let factoryDefault = number("default").map { RegisterRules.normalized(.float($0), for: type) }
        guard let address else { return nil }
        let slug = RegisterMapCSV.slugify(p.id)
        guard !slug.isEmpty else {
            report.fail("\(p.path)", .string(p.id), "cannot derive a registerId from this parameter id")
            return nil
        }
        var readonly = false
        if case .bool(let b)? = f["readonly"] { readonly = b }
        let register = RegisterDefinition(
            registerId: "\(pageId).\(slug)", name: text(f["title"]) ?? p.id, address: address, type: type,
            wordOrder: text(f["word_order"]).map { $0 == "little_endian" ? .little : .big },
            byteOrder: text(f["byte_order"]).map { $0 == "little_endian" ? .little : .big }, min: bound("min"),
            max: bound("max"), enum: enumValues, scale: number("scale"), access: readonly ? .ro : nil,
            factoryDefault: factoryDefault, description: text(f["description"]))
        for r in RegisterRules.problems(of: register) {
            report.fail("\(p.path).\(r.key == "factoryDefault" ? "default" : r.key)", r.value, r.message)
        }
        var group = ""
        if let g = f["group"] {
            guard case .string(let id) = g else {
                report.fail("\(p.path).group", g, "group must be a string")
                return nil
            }
            if groups[id] == nil { report.fail("\(p.path).group", g, "no group in device.groups has this id") }
            group = id
        }
        return PlacedRegister(group: group, order: number("order") ?? Double.infinity, index: p.index, register: register)
    }

    /// The value when it is a string.
    private static func text(_ value: JSONValue?) -> String? {
        if case .string(let s)? = value { return s }
        return nil
    }

    /// Whether the parameter is a holding register (the others are left out, said so).
    private static func isHolding(_ p: Parameter, into report: inout Report) -> Bool {
        let regType: String
        switch p.fields["reg_type"] {
        case nil: regType = "holding"
        case .string(let s)?: regType = s
        case let other?:
            report.fail("\(p.path).reg_type", other, "reg_type must be a string")
            return false
        }
        guard regType == "holding" else {
            report.notImported.append(
                "\(p.path): reg_type \"\(regType)\" is not imported (Lastset reads and writes holding registers)")
            return false
        }
        return true
    }

    /// The parameter's address: an integer, or decimal or `0x` hex text.
    private static func address(of p: Parameter, into report: inout Report) -> Int? {
        switch p.fields["address"] {
        case .int(let a)?: return Int(a)
        case .string(let s)?:
            let t = s.lowercased()
            let address = t.hasPrefix("0x") ? Int(t.dropFirst(2), radix: 16) : Int(t)
            if address == nil { report.fail("\(p.path).address", .string(s), "not an address (decimal or 0x hex)") }
            return address
        case nil:
            report.fail("\(p.path).address", nil, "a parameter needs an address")
        case let other?:
            report.fail("\(p.path).address", other, "not an address (decimal or 0x hex)")
        }
        return nil
    }

    /// The parameter's register type from its `format` (u16 when absent); nil when it is not imported.
    private static func type(of p: Parameter, into report: inout Report) -> RegisterType? {
        var format = "u16"
        if let v = p.fields["format"] {
            guard case .string(let s) = v else {
                report.fail("\(p.path).format", v, "format must be a string")
                return nil
            }
            format = s
        }
        let types: [String: RegisterType] = [
            "u16": .u16, "s16": .s16, "u32": .u32, "s32": .s32, "u64": .u64, "s64": .s64, "float": .f32, "double": .f64,
        ]
        guard let type = types[format] else {
            report.notImported.append(
                "\(p.path): format \"\(format)\" is not imported (Lastset has u16, s16, u32, s32, u64, s64, float, double)")
            return nil
        }
        return type
    }

    /// The template's title (or device type), for the pages' titles.
    private static func title(of top: [String: JSONValue]) -> String? {
        text(top["title"]) ?? text(top["device_type"])
    }

    /// One page per group, in the groups' order (ungrouped parameters first), registers in their `order`.
    private static func assemble(
        _ byGroup: [String: [PlacedRegister]], groups: [String: Group], title: String?, pageId: String,
        into report: inout Report
    ) -> [PageDefinition] {
        var pages: [PageDefinition] = []
        let orderedGroups = byGroup.keys.sorted { a, b in
            if a.isEmpty || b.isEmpty { return a.isEmpty && !b.isEmpty }
            // A group no entry of device.groups has is a problem already; its page sorts last, by name.
            guard let ga = groups[a] else { return groups[b] == nil && a < b }
            guard let gb = groups[b] else { return true }
            return ga.order != gb.order ? ga.order < gb.order : ga.index < gb.index
        }
        for g in orderedGroups {
            let registers = byGroup[g]!.sorted { $0.order != $1.order ? $0.order < $1.order : $0.index < $1.index }.map(
                \.register)
            let id = g.isEmpty ? pageId : "\(pageId)-\(RegisterMapCSV.slugify(g).replacingOccurrences(of: "_", with: "-"))"
            let pageTitle = g.isEmpty ? title : [title, groups[g]?.title ?? g].compactMap { $0 }.joined(separator: ": ")
            if !SafeName.isValid(id) { report.fail("device.groups", .string(g), "group id does not make a page id (\(id))") }
            pages.append(PageDefinition(id: id, title: pageTitle, registers: registers))
        }
        return pages
    }

    /// The pages as pretty JSON (an array, ready to paste into the config's `pages`).
    public static func json(for pages: [PageDefinition]) -> String {
        "[\n" + pages.map { RegisterMapCSV.json(for: $0) }.joined(separator: ",\n") + "\n]"
    }
}
