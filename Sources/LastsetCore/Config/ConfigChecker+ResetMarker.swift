import LastsetFormats

/// A page's `resetMarker` (docs/REPLACEMENT.md): one of the page's registers and the value it holds after a factory
/// reset, checked against the register's type when the config loads.
extension ConfigChecker {
    /// The marker of the page at `path` with `registers`; a problem (naming the page, the register and the value)
    /// when the register is not the page's or the value is not one of its type.
    mutating func resetMarker(
        _ fields: [String: JSONValue], _ path: String, pageId: String?, registers: [RegisterDefinition]
    ) -> ResetMarker? {
        guard let value = field(fields, "resetMarker", in: path, required: false) else { return nil }
        let markerPath = join(path, "resetMarker")
        guard let marker = object(value, markerPath, keys: ["registerId", "value"]) else { return nil }
        let registerId = string(marker, "registerId", in: markerPath, required: true)
        let given = field(marker, "value", in: markerPath, required: true)
        guard let registerId, let given else { return nil }
        let page = pageId.map { "page \"\($0)\"" } ?? "this page"
        guard let register = registers.first(where: { $0.registerId == registerId }) else {
            add(
                join(markerPath, "registerId"), .string(registerId),
                "\(page) has no register \"\(registerId)\" (the reset marker must be one of the page's registers)")
            return nil
        }
        guard let typed = registerValue(given) else {
            add(join(markerPath, "value"), given, "must be a number, a string or {hex: \"…\"}")
            return nil
        }
        do throws(CodecError) {
            _ = try RegisterCodec.encode(typed, as: register)
        } catch {
            add(
                join(markerPath, "value"), given,
                "reset marker of \(page): not a value of register \"\(registerId)\" (\(register.type)): \(error.reason)")
            return nil
        }
        return ResetMarker(registerId: registerId, value: typed)
    }
}
