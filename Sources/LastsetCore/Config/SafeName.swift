/// The rule for ids that become file names (page ids, device ids): `[A-Za-z0-9][A-Za-z0-9._-]*`, at most 64.
public enum SafeName {
    /// Longest accepted id.
    public static let maxLength = 64

    /// Whether `text` is a safe id: it can never name a path outside its directory.
    public static func isValid(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= maxLength else { return false }
        func alnum(_ c: UInt8) -> Bool { (48...57).contains(c) || (65...90).contains(c) || (97...122).contains(c) }
        return alnum(first) && text.utf8.allSatisfy { alnum($0) || $0 == 46 || $0 == 95 || $0 == 45 }
    }
}
