/// One fuzz target: an entry point that takes arbitrary bytes and must never trap.
///
/// A target is the type `<Name>FuzzTarget` (a struct or enum in this module) whose `name` is `<name>`, e.g.
/// `ConfigFuzzTarget` / `config`; its seed corpus is `Fuzz/corpus/<name>/`. `FuzzTargets.named` finds the
/// type by that convention, so adding a target is adding its file (and its corpus folder): nothing to register.
public protocol FuzzTarget {
    /// The target's name: its corpus folder and the argument of `make fuzz` / `lastset-fuzz`.
    static var name: String { get }
    /// Feeds one input to the code under test. Thrown errors are the expected answer to bad input; a trap
    /// (or a violated `precondition` on a property the code promises) is a finding.
    static func run(_ data: [UInt8])
}

/// Finds fuzz targets by name.
public enum FuzzTargets {
    /// The target called `name` (letters and digits, starting with a lowercase letter), or nil.
    ///
    /// Swift cannot list a protocol's conformances, so the type is looked up by its mangled name (a top-level
    /// struct `V` or enum `O` of this module): `config` → `FuzzTargets.ConfigFuzzTarget`.
    public static func named(_ name: String) -> (any FuzzTarget.Type)? {
        guard let first = name.unicodeScalars.first, ("a"..."z").contains(first),
            name.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) })
        else { return nil }
        let typeName = name.prefix(1).uppercased() + name.dropFirst() + "FuzzTarget"
        let module = "FuzzTargets"
        for kind in ["V", "O"] {
            let mangled = "\(module.utf8.count)\(module)\(typeName.utf8.count)\(typeName)\(kind)"
            if let type = _typeByName(mangled) as? any FuzzTarget.Type, type.name == name { return type }
        }
        return nil
    }
}
