import LastsetFormats

/// A device a scan found: where it answered, what it said it is, which archived templates fit it, and the entry
/// that would put it in the config.
public struct FoundDevice: Sendable, Hashable {
    /// The endpoint it answered on (a serial line with the baud it answered at).
    public var endpoint: String
    /// Its unit id.
    public var unit: Int
    /// How it answered the probe: `registers` (FC03 at 0 read) or `exception 02` (it exists, the register not).
    public var answered: String
    /// Its FC43/14 identification, when it has one.
    public var identification: DeviceIdentification?
    /// Why it has none (`exception 01`: no FC43).
    public var identificationError: String?
    /// Its SunSpec model chain, when it has the "SunS" marker.
    public var sunspec: SunSpecChain?
    /// Per configured page with an identity: whether its latest template fits this device.
    public var fits: [TemplateFit]

    /// Sets every field.
    public init(
        endpoint: String, unit: Int, answered: String, identification: DeviceIdentification? = nil,
        identificationError: String? = nil, sunspec: SunSpecChain? = nil, fits: [TemplateFit] = []
    ) {
        self.endpoint = endpoint
        self.unit = unit
        self.answered = answered
        self.identification = identification
        self.identificationError = identificationError
        self.sunspec = sunspec
        self.fits = fits
    }

    /// A device id for the config entry: its product code (or SunSpec, or `unit`) made a safe name, with the unit.
    public var suggestedId: String {
        let base = identification?.object(.productCode)?.text ?? (sunspec == nil ? "unit" : "sunspec")
        var id = ""
        for c in base.lowercased().unicodeScalars {
            let safe = ("a"..."z").contains(c) || ("0"..."9").contains(c) || c == "." || c == "_"
            id += safe ? String(c) : (id.hasSuffix("-") || id.isEmpty ? "" : "-")
        }
        while id.hasSuffix("-") { id.removeLast() }
        return String((id.isEmpty ? "unit" : id).prefix(40)) + "-\(unit)"
    }

    /// The config entry (JSON5, one line): id, endpoint, unit, and the pages whose latest template fits.
    public var configEntry: String {
        let pages = fits.filter(\.fits).map { "\"\($0.pageId)\"" }.joined(separator: ", ")
        return "{ id: \"\(suggestedId)\", endpoint: \"\(endpoint)\", unit: \(unit), pages: [\(pages)] },"
    }
}

extension FoundDevice: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = FoundDevice(endpoint: "", unit: 0, answered: "")

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("answered", &r.answered)
        try f.field("endpoint", &r.endpoint)
        try f.field("fits", &r.fits)
        try f.field("identification", &r.identification)
        try f.field("identificationError", &r.identificationError)
        try f.field("sunspec", &r.sunspec)
        try f.field("unit", &r.unit)
    }
}
