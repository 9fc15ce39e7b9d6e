import LastsetCore

/// `lastset capture PAGE --from DEVICE`: read the page from a reference machine and archive it as a new template.
struct Capture: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "capture", abstract: "Capture a page from a reference device and archive it as the next template version.",
        discussion: """
            Reads the page fresh from the device, validates every register and archives the template. A capture with
            invalid values archives nothing and lists each bad register; the previous template stays current.
            Exit status: 0 when archived, 1 otherwise.
            """,
        arguments: [.init(name: "PAGE", help: "Page id, e.g. heating")],
        options: [.value("--from", "DEVICE", required: true, "Configured id of the reference device")])

    /// The page to capture.
    let pageId: String
    /// The reference device.
    let device: String

    /// Takes PAGE and --from.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        pageId = arguments.argument("PAGE")
        device = arguments.value("--from") ?? ""
    }

    /// Page and device ids must be safe names.
    func validate() throws(UsageError) {
        _ = try ArgumentCheck.pageId(pageId, Self.spec)
        _ = try ArgumentCheck.deviceId(device, option: "--from", Self.spec)
    }

    /// Starts the capture, follows it and prints its report.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        try JobRunner(context: context).run(
            path: "/v1/pages/\(DaemonAPI.escape(pageId))/capture", body: CaptureRequest(device: device))
    }
}
