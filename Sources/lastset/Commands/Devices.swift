import LastsetCore

/// `lastset devices`: the configured devices and their health.
struct Devices: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "devices", abstract: "List the configured devices, their endpoints and whether they answer.")

    /// No arguments.
    init(_ arguments: ParsedArguments) throws(UsageError) {}

    /// Prints the device table.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let devices = try context.api.get([DeviceStatus].self, "/v1/devices")
        if context.options.json { try context.printJSON(devices) } else { context.print(TextView.devices(devices)) }
        return .success
    }
}
