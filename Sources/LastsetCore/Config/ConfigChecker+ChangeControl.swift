import LastsetFormats

/// The `changeControl` section (docs/CHANGE-CONTROL.md).
extension ConfigChecker {
    /// Protected pages and registers must exist; `reasonRequired` is true or false.
    mutating func changeControl(_ value: JSONValue, _ path: String, pages: [PageDefinition]) -> ChangeControlConfig? {
        guard let f = object(value, path, keys: ChangeControlConfig.keys) else { return nil }
        let pageIds = Set(pages.map(\.id))
        let registerIds = Set(pages.flatMap { $0.registers.map(\.registerId) })
        func ids(_ key: String, known: Set<String>, what: String) -> [String] {
            guard let list = array(f, key, in: path) else { return [] }
            var out: [String] = []
            for (i, item) in list.enumerated() {
                guard case .string(let id) = item, known.contains(id) else {
                    add("\(join(path, key))[\(i)]", item, "must be the id of a configured \(what)")
                    continue
                }
                out.append(id)
            }
            return out
        }
        return ChangeControlConfig(
            protectedPages: ids("protectedPages", known: pageIds, what: "page"),
            protectedRegisters: ids("protectedRegisters", known: registerIds, what: "register"),
            reasonRequired: boolean(f, "reasonRequired", in: path) ?? false)
    }
}
