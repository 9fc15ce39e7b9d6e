import LastsetCore

/// A legacy iOS app archive (binary or XML plist, NSKeyedArchiver of SARegister) through the whole import
/// path — `PropertyListReader`, `KeyedArchive`, `IOSArchive.template` onto a fixed page — and, when it
/// imports, the export back (`IOSArchive.fuzzEntry`), as `lastset import` and `POST …/templates` read it.
public enum IOSArchiveFuzzTarget: FuzzTarget {
    /// `iOSArchive`.
    public static let name = "iOSArchive"

    /// Reads, maps and (when it maps) re-exports the bytes; anything but a value or a thrown error is a finding.
    public static func run(_ data: [UInt8]) { IOSArchive.fuzzEntry(data) }
}
