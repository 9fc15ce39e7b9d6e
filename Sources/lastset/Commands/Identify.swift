import LastsetCore

/// `lastset identify DEVICE|ENDPOINT [--unit N]`: what a device says it is through FC43/14 (Read Device
/// Identification): vendor, product code, revision and its regular and extended objects.
struct Identify: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "identify",
        abstract: "Ask a device what it is (Modbus Read Device Identification, FC43/14); nothing is written.",
        discussion: """
            TARGET is a configured device id, or an endpoint (tcp://HOST:PORT, rtu:///dev/ttyUSB0?baud=19200) with --unit.
            Prints vendor, product code and revision (the basic objects), then the regular objects (VendorUrl,
            ProductName, ModelName, UserApplicationName) and the extended (private, 0x80–0xFF) ones the device has.
            A device without FC43 answers exception 01: exit status 1, saying so. See docs/IDENTIFICATION.md.
            """,
        arguments: [.init(name: "TARGET", help: "Configured device id, or an endpoint")],
        options: [.value("--unit", "N", "Unit id of an endpoint (1-247, default 1)")])

    /// The device id or endpoint.
    let target: String
    /// `--unit`.
    let unit: Int?

    /// Takes TARGET and --unit.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        target = arguments.argument("TARGET")
        unit = try arguments.integer("--unit", in: 1...247)
    }

    /// An endpoint must parse; a device id must be a safe name and takes no --unit.
    func validate() throws(UsageError) {
        if target.contains("://") {
            do {
                _ = try Endpoint.parse(target)
            } catch {
                throw UsageError("invalid endpoint \"\(target)\": \(error.description)", command: Self.spec)
            }
        } else {
            _ = try ArgumentCheck.deviceId(target, option: "TARGET", Self.spec)
            if unit != nil { throw UsageError("--unit goes with an endpoint, not with a device id", command: Self.spec) }
        }
    }

    /// Prints the identification.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let query =
            target.contains("://")
            ? "endpoint=\(DaemonAPI.escape(target))&unit=\(unit ?? 1)" : "device=\(DaemonAPI.escape(target))"
        let report = try context.api.get(IdentifyReport.self, "/v1/identify?" + query)
        if context.options.json { try context.printJSON(report) } else { context.print(Self.text(report)) }
        return .success
    }

    /// The human form: the basic objects by name, then each regular and extended object on its own line.
    static func text(_ report: IdentifyReport) -> [String] {
        let identification = report.identification
        var lines: [String] = []
        if let device = report.device { lines.append("device       \(device)") }
        lines.append("endpoint     \(report.endpoint) unit \(report.unit)")
        lines.append("conformity   \(report.conformity)")
        lines.append("vendor       \(identification.vendorName ?? "-")")
        lines.append("product code \(identification.productCode ?? "-")")
        lines.append("revision     \(identification.majorMinorRevision ?? "-")")
        for (title, objects) in [("regular", identification.regularObjects), ("extended", identification.extendedObjects)] {
            guard !objects.isEmpty else { continue }
            lines.append("\(title) objects:")
            var table = Table([.init("OBJECT"), .init("VALUE")])
            for o in objects { table.append([o.id.name, o.shown]) }
            lines += table.lines.map { "  " + $0 }
        }
        return lines
    }
}
