import LastsetFormats

/// A device identification object (FC43/14) a page's identity names: the target must hold what the template's
/// source held (`{object: "ProductCode"}`), or — with `match` — a value the regular expression finds a match in
/// (`{object: "MajorMinorRevision", match: "^3\\."}`: any 3.x revision).
public struct IdentityObject: Codable, Sendable, Hashable {
    /// Which object.
    public var object: IdentificationObjectId
    /// A regular expression (Swift `Regex` syntax) the target's value must contain a match of; nil: the value
    /// must equal the one recorded at capture.
    public var match: String?

    /// Sets every field.
    public init(object: IdentificationObjectId, match: String? = nil) {
        self.object = object
        self.match = match
    }

    /// The id its value is recorded under in a template's source identity: `fc43:ProductCode`.
    public var recordedId: String { "fc43:" + object.name }

    /// The recorded identity value of `found` (address = the object id, the value as text or hex).
    public func recorded(_ found: IdentificationObject) -> RecordedValue {
        RecordedValue(
            registerId: recordedId, address: Int(object.rawValue), valueData: found.hex,
            value: found.text.map(RegisterValue.text) ?? .bytes(found.value))
    }

    /// Whether `pattern` is a regular expression; the compiler's message when not.
    public static func patternProblem(_ pattern: String) -> String? {
        do {
            _ = try Regex(pattern)
            return nil
        } catch {
            return "not a regular expression: \(error)"
        }
    }

    /// Compares what the target answered (`actual`, nil when it does not have the object) with the identity:
    /// `recorded` is the template's value for it. The one decision for every replay and dry run.
    public func check(recorded: RecordedValue?, actual: IdentificationObject?) -> IdentityCheck {
        var check = IdentityCheck(
            registerId: recordedId, expected: recorded?.value,
            actual: actual.map { $0.text.map(RegisterValue.text) ?? .bytes($0.value) },
            matches: false)
        guard let actual else {
            check.message = "the target has no identification object \(object)"
            return check
        }
        if let match {
            guard let regex = try? Regex(match) else {
                check.message = "\"\(match)\" is not a regular expression"
                return check
            }
            check.matches = actual.shown.contains(regex)
            // The pattern as the config spells it (unescaped), the value quoted as JSON (a control byte stays visible).
            if !check.matches { check.message = "\(JSONValue.quote(actual.shown)) does not match \"\(match)\"" }
            return check
        }
        guard let recorded else {
            check.message = "the template recorded no value for it"
            return check
        }
        check.matches = recorded.valueData.uppercased() == actual.hex
        if !check.matches { check.message = "expected \(recorded.value), target has \(JSONValue.quote(actual.shown))" }
        return check
    }
}
