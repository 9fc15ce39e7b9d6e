import LastsetFormats

/// Each written override checked against its register on every device it reaches (`OverrideRules`).
extension ConfigChecker {
    /// The values that pass, typed by their registers; a problem for each that does not, naming the device or
    /// group, the register and the value.
    mutating func checkOverrides(
        _ written: [WrittenOverride], groups: [String: [String]], devices: [DeviceConfig], pages: [PageDefinition]
    ) -> [OverrideEntry] {
        let byId = Dictionary(devices.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
        let registers = Self.registersById(pages)
        var seen: [String: String] = [:]
        var out: [OverrideEntry] = []
        for w in written {
            func problem(_ message: String, _ value: JSONValue? = nil) {
                problems.append(
                    ConfigProblem(
                        file: w.file, path: w.path, value: (value ?? RegisterRules.jsonValue(w.entry.value)).abbreviated(),
                        message: message))
            }
            let key = w.entry.target + "\u{0}" + w.entry.registerId
            if let first = seen[key] {
                problem("\(w.entry.target) sets \(w.entry.registerId) twice (first at \(first))")
                continue
            }
            seen[key] = w.entry.source
            let reached: [String]
            if byId[w.entry.target] != nil {
                reached = [w.entry.target]
            } else if let members = groups[w.entry.target] {
                reached = members
            } else {
                problem("no device or group has the id \"\(w.entry.target)\"", .string(w.entry.target))
                continue
            }
            guard let (page, definition) = registers[w.entry.registerId] else {
                problem("no page has a register with the id \"\(w.entry.registerId)\"", .string(w.entry.registerId))
                continue
            }
            var entry = w.entry
            if w.fromCSV, case .text(let text) = w.entry.value {
                guard let typed = OverrideRules.value(csvText: text, type: definition.type) else {
                    problem("not a value of \(w.entry.registerId)'s type \(definition.type)", .string(text))
                    continue
                }
                entry.value = typed
            }
            if let message = reachProblem(entry, reached: reached, byId: byId, page: page, definition: definition) {
                problem(message, RegisterRules.jsonValue(entry.value))
                continue
            }
            out.append(entry)
        }
        groupConflicts(out, groups: groups)
        return out
    }

    /// Why `entry` cannot reach one of its devices (nil: it reaches them all): a device without the register's
    /// page, or a value the register refuses under that device's "not set" convention.
    private func reachProblem(
        _ entry: OverrideEntry, reached: [String], byId: [String: DeviceConfig], page: PageDefinition,
        definition: RegisterDefinition
    ) -> String? {
        for id in reached {
            guard let device = byId[id] else { continue }
            guard (device.pages ?? []).contains(page.id) else {
                return "device \(id) does not have page \"\(page.id)\" (the page of \(entry.registerId))"
            }
            let style = page.unsetStyle ?? device.unsetStyle ?? .maximum
            let register = CompiledRegister(definition, position: 0, style: style)
            if case .failure(let refusal) = OverrideRules.words(entry.value, for: register) {
                return "\(entry.target) → \(entry.registerId): \(refusal)" + (reached.count > 1 ? " (on device \(id))" : "")
            }
        }
        return nil
    }

    /// A device in two groups that both set one register: which value it gets would be a guess, so it is a problem.
    private mutating func groupConflicts(_ entries: [OverrideEntry], groups: [String: [String]]) {
        var setBy: [String: String] = [:]  // device + register → group
        let own = Set(entries.map { $0.target + "\u{0}" + $0.registerId })
        for e in entries {
            guard let members = groups[e.target] else { continue }
            for d in members {
                let key = d + "\u{0}" + e.registerId
                if own.contains(key) { continue }
                if let other = setBy[key], other != e.target {
                    add(
                        e.source, .string(e.target),
                        "device \(d) is in groups \(other) and \(e.target), which both set \(e.registerId): give the device its own value or leave one group's out"
                    )
                }
                setBy[key] = e.target
            }
        }
    }
}
