import Foundation
import LastsetCore

/// `lastset scan ENDPOINT [--units 1-247] [--bauds 9600,19200] [--timeout 200ms] [--sunspec-models DIR]`: finds the
/// devices on a line or TCP peer, says what each is and which archived templates fit it, and prints config entries.
struct Scan: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "scan",
        abstract: "Find the devices on a serial line or TCP peer and what they are; only reads are sent.",
        discussion: """
            Each unit is probed with one read (FC03, one register at 0); a unit that answers (with registers or an
            exception) is identified: FC43/14, SunSpec's "SunS" marker at 40000, 0 or 50000 with its model chain, and
            the identity registers of the configured pages, whose latest templates are then said to fit or not.
            A sweep takes at most (units × --timeout) + 5 % plus the time the devices found take to answer.
            The daemon holds the whole line (or TCP peer) for each sweep: polls and jobs on it wait.
            --sunspec-models DIR: the SunSpec JSON model definitions (e.g. pysunspec2's models/json); a page is
            generated for each model found, with its writable points, types, scale factors and "not implemented"
            values. See docs/IDENTIFICATION.md.
            """,
        arguments: [.init(name: "ENDPOINT", help: "tcp://HOST:PORT or rtu:///dev/ttyUSB0?baud=19200…")],
        options: [
            .value("--units", "LIST", "Units to probe: 1-247 (default), 3,17,42, 1-10,42"),
            .value("--bauds", "LIST", "Baud rates to sweep a serial line at, e.g. 9600,19200 (default: the endpoint's)"),
            .value("--timeout", "DURATION", "Response timeout of each probe (default 200ms)"),
            .value("--sunspec-models", "DIR", "Directory of SunSpec JSON models (model_<id>.json): generate pages"),
        ])

    /// The request sent.
    let request: ScanRequest
    /// `--sunspec-models`.
    let sunspecModels: String?

    /// Takes ENDPOINT and the options.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        var bauds: [Int]?
        if let text = arguments.value("--bauds") {
            var list: [Int] = []
            for part in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let b = Int(part) else {
                    throw UsageError("--bauds takes baud rates separated by commas (got \"\(text)\")", command: Self.spec)
                }
                list.append(b)
            }
            bauds = list
        }
        request = ScanRequest(
            endpoint: arguments.argument("ENDPOINT"), units: arguments.value("--units"), bauds: bauds,
            timeout: arguments.value("--timeout"))
        sunspecModels = arguments.value("--sunspec-models")
    }

    /// The endpoint must parse, the units be 1-247, bauds only for a serial line.
    func validate() throws(UsageError) {
        let endpoint: Endpoint
        do {
            endpoint = try Endpoint.parse(request.endpoint)
        } catch {
            throw UsageError("invalid endpoint \"\(request.endpoint)\": \(error.description)", command: Self.spec)
        }
        if let units = request.units, case .failure(let error) = UnitSelection.parse(units) {
            throw UsageError(error.description, command: Self.spec)
        }
        if request.bauds != nil, case .tcp = endpoint {
            throw UsageError("--bauds is for a serial line (rtu://…)", command: Self.spec)
        }
    }

    /// Runs the scan as a job, then prints what it found (and the generated SunSpec pages).
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let started = try context.api.post(JobInfo.self, "/v1/scan", json: request)
        let job = try JobRunner(context: context).wait(for: started)
        guard let report = job.scan else { throw CLIError("the scan ended without a report: \(job.error ?? "no error given")") }
        let generated = try sunspecPages(report)
        if context.options.json {
            try context.printJSON(ScanOutput(report: report, sunspecPages: generated.pages, sunspecNotes: generated.notes))
        } else {
            context.print(ScanView.text(report, request: request) + ScanView.pages(generated.pages, notes: generated.notes))
        }
        return report.error == nil ? .success : .failure
    }

    /// The pages of every SunSpec model found, from the definitions in `--sunspec-models`.
    private func sunspecPages(_ report: ScanReport) throws(CLIError) -> (pages: [PageDefinition], notes: [String]) {
        guard let dir = sunspecModels else { return ([], []) }
        var pages: [PageDefinition] = []
        var notes: [String] = []
        var seen: [Int: Int] = [:]
        for device in report.found {
            for model in device.sunspec?.realModels ?? [] {
                let file = URL(fileURLWithPath: dir).appendingPathComponent("model_\(model.id).json")
                guard let data = FileManager.default.contents(atPath: file.path) else {
                    notes.append("unit \(device.unit): model \(model.id): no \(file.path): no page")
                    continue
                }
                seen[model.id, default: 0] += 1
                let id = "sunspec-\(model.id)" + (seen[model.id]! > 1 ? "-\(seen[model.id]!)" : "")
                do {
                    let generated = try SunSpecPages.page(definition: [UInt8](data), model: model, pageId: id)
                    if generated.page.registers.isEmpty {
                        notes.append("unit \(device.unit): model \(model.id) has no writable point: no page")
                        continue
                    }
                    pages.append(generated.page)
                    notes += generated.notes.map { "unit \(device.unit): \(id): \($0)" }
                } catch {
                    notes.append("unit \(device.unit): \(error.message)")
                }
            }
        }
        return (pages, notes)
    }
}

/// `lastset --json scan`: the report and the pages generated from SunSpec models.
struct ScanOutput: Encodable {
    /// What the daemon found.
    let report: ScanReport
    /// Pages generated from `--sunspec-models`.
    let sunspecPages: [PageDefinition]
    /// What the generation could not carry over.
    let sunspecNotes: [String]
}
