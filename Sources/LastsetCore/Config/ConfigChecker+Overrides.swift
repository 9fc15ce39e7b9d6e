import LastsetFormats

/// The `overrides` section: groups, values (the config's and the CSV's), tolerances — each value checked against
/// its register on every device it reaches, as a template value is (docs/OVERRIDES.md).
extension ConfigChecker {
    /// A value as written, before it is checked against its register.
    struct WrittenOverride {
        var entry: OverrideEntry
        /// The problem's file and JSON path (a CSV row: the CSV and `line N`).
        var file: String
        var path: String
        /// A CSV row's value is text until its register's type reads it.
        var fromCSV = false
    }

    /// The checked section; problems name the device or group, the register and the value.
    mutating func overrides(_ value: JSONValue, _ path: String, pages: [PageDefinition], devices: [DeviceConfig])
        -> OverridesConfig?
    {
        guard let f = object(value, path, keys: OverridesConfig.keys) else { return nil }
        let deviceIds = Set(devices.map(\.id))
        var groups: [String: [String]] = [:]
        if let g = field(f, "groups", in: path, required: false) { groups = overrideGroups(g, join(path, "groups"), deviceIds) }
        var written: [WrittenOverride] = []
        if let v = field(f, "values", in: path, required: false) { written = overrideValues(v, join(path, "values")) }
        let csv = string(f, "csv", in: path)
        if let csv { written += overrideRows(csvFile: csv, path: join(path, "csv")) }
        let registers = Self.registersById(pages)
        var tolerances: [String: Tolerance] = [:]
        if let t = field(f, "tolerances", in: path, required: false) {
            tolerances = overrideTolerances(t, join(path, "tolerances"), registers)
        }
        let values = checkOverrides(written, groups: groups, devices: devices, pages: pages)
        return OverridesConfig(groups: groups, values: values, tolerances: tolerances, csv: csv)
    }

    /// Each register of the pages by id, with its page (the checker refuses repeated registerIds).
    static func registersById(_ pages: [PageDefinition]) -> [String: (page: PageDefinition, register: RegisterDefinition)] {
        var out: [String: (page: PageDefinition, register: RegisterDefinition)] = [:]
        for p in pages {
            for r in p.registers where out[r.registerId] == nil { out[r.registerId] = (p, r) }
        }
        return out
    }

    /// `groups: { "line-a": ["press-01", …] }`: ids safe, not a device's, members configured devices.
    private mutating func overrideGroups(_ value: JSONValue, _ path: String, _ deviceIds: Set<String>) -> [String: [String]] {
        guard case .object(let groups) = value else {
            add(path, value, "must be an object: group id → [device ids]")
            return [:]
        }
        var out: [String: [String]] = [:]
        for id in groups.keys.sorted() {
            let groupPath = join(path, id)
            safeId(id, groupPath, what: "group id")
            if deviceIds.contains(id) { add(groupPath, .string(id), "a group id must not be a device id (values name either)") }
            guard let list = array(groups, id, in: path) else { continue }
            if list.isEmpty { add(groupPath, value, "a group needs at least one device") }
            var members: [String] = []
            for (i, item) in list.enumerated() {
                guard case .string(let d) = item, deviceIds.contains(d) else {
                    add("\(groupPath)[\(i)]", item, "must be the id of a configured device")
                    continue
                }
                if members.contains(d) { add("\(groupPath)[\(i)]", item, "listed twice") } else { members.append(d) }
            }
            out[id] = members
        }
        return out
    }

    /// `values: { "press-01": { "heating.setpoint": 215 } }`.
    private mutating func overrideValues(_ value: JSONValue, _ path: String) -> [WrittenOverride] {
        guard case .object(let targets) = value else {
            add(path, value, "must be an object: device or group id → { registerId: value }")
            return []
        }
        var out: [WrittenOverride] = []
        for target in targets.keys.sorted() {
            let targetPath = join(path, target)
            guard case .object(let registers)? = targets[target] else {
                add(targetPath, targets[target], "must be an object: registerId → value")
                continue
            }
            for id in registers.keys.sorted() {
                let valuePath = join(targetPath, id)
                guard let raw = field(registers, id, in: targetPath, required: false) else { continue }
                guard let v = registerValue(raw) else {
                    add(valuePath, raw, "must be a number, a string or {hex: \"…\"}")
                    continue
                }
                out.append(
                    WrittenOverride(
                        entry: OverrideEntry(target: target, registerId: id, value: v, source: valuePath), file: file,
                        path: valuePath))
            }
        }
        return out
    }

    /// The CSV the user keeps (`device,registerId,value`, a header first), read relative to the config file.
    /// Values are kept as text here: their type is the register's (`OverrideRules.value(csvText:type:)`).
    private mutating func overrideRows(csvFile name: String, path: String) -> [WrittenOverride] {
        guard let read else { return [] }
        let resolved = ConfigIncludes.resolve(name, from: file)
        let data: [UInt8]
        switch read(resolved) {
        case .success(let d): data = [UInt8](d)
        case .failure(let failure):
            add(path, .string(name), "cannot read the overrides CSV \(resolved): \(failure.reason)")
            return []
        }
        guard let text = String(validating: data, as: UTF8.self) else {
            add(path, .string(name), "the overrides CSV \(resolved) is not valid UTF-8")
            return []
        }
        let rows = RegisterMapCSV.parse(text).filter { !$0.fields.allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty } }
        guard let header = rows.first else { return [] }
        let columns = header.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        guard let d = columns.firstIndex(of: "device"), let r = columns.firstIndex(of: "registerId"),
            let v = columns.firstIndex(of: "value")
        else {
            problems.append(
                ConfigProblem(
                    file: resolved, path: "line \(header.line)", value: JSONValue.quote(columns.joined(separator: ",")),
                    message: "the header must name the columns device, registerId and value"))
            return []
        }
        var out: [WrittenOverride] = []
        for row in rows.dropFirst() {
            func cell(_ i: Int) -> String { i < row.fields.count ? row.fields[i].trimmingCharacters(in: .whitespaces) : "" }
            let rowPath = "line \(row.line)"
            guard !cell(d).isEmpty, !cell(r).isEmpty else {
                problems.append(
                    ConfigProblem(file: resolved, path: rowPath, value: "", message: "device and registerId must not be empty"))
                continue
            }
            // The text rides as a string until the register's type is known.
            out.append(
                WrittenOverride(
                    entry: OverrideEntry(
                        target: cell(d), registerId: cell(r), value: .text(cell(v)), source: "\(resolved) \(rowPath)"),
                    file: resolved, path: rowPath + " (\(cell(d)), \(cell(r)))", fromCSV: true))
        }
        return out
    }

    /// `tolerances: { "heating.ramp": { absolute: 0.1 } | { percent: 2 } }`.
    private mutating func overrideTolerances(
        _ value: JSONValue, _ path: String, _ registers: [String: (page: PageDefinition, register: RegisterDefinition)]
    ) -> [String: Tolerance] {
        guard case .object(let entries) = value else {
            add(path, value, "must be an object: registerId → {absolute: N} or {percent: N}")
            return [:]
        }
        var out: [String: Tolerance] = [:]
        for id in entries.keys.sorted() {
            let at = join(path, id)
            guard let f = object(entries[id]!, at, keys: ["absolute", "percent"]) else { continue }
            let tolerance: Tolerance
            switch (number(f, "absolute", in: at), number(f, "percent", in: at)) {
            case (let a?, nil): tolerance = .absolute(a)
            case (nil, let p?): tolerance = .percent(p)
            default:
                add(at, entries[id], "give exactly one of absolute (raw units) or percent")
                continue
            }
            guard let register = registers[id]?.register else {
                add(at, .string(id), "no page has a register with this id")
                continue
            }
            if let problem = OverrideRules.toleranceProblem(tolerance, for: register) {
                add(at, entries[id], problem)
                continue
            }
            out[id] = tolerance
        }
        return out
    }
}
