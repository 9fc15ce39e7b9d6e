import Foundation
import LastsetClient
import LastsetCore
import LastsetFormats

/// `lastset events [--count N]`: follows `GET /v1/events` from a terminal — machine findings, drift, jobs' start,
/// progress and end — one line per event (`--json`: one JSON object per line) until interrupted, the daemon stops,
/// or `--count` events have been printed.
struct Events: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "events",
        abstract: "Follow the daemon's events: replaced or reset machines, drift, jobs (until interrupted).",
        discussion: """
            One line per event: time, event, device, what happened. Events: replaced, factoryReset, anotherModel,
            changedElsewhere, resolved (docs/REPLACEMENT.md), drift, driftCleared, jobStarted, jobProgress, jobFinished.
            With --json each event is one JSON object on its own line (GET /v1/events' data). A line on stderr says
            when the stream is open. Exit 0 when --count events were printed or the daemon ended the stream.
            """,
        options: [.value("--count", "N", "Stop after N events (1-1000000)")])

    /// `--count`.
    let count: Int?

    /// Takes --count.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        count = try arguments.integer("--count", in: 1...1_000_000)
    }

    /// Prints each event as it arrives.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let printer = Printer(json: context.options.json, limit: count, console: context.console)
        let response: HTTPClientResponse
        do throws(HTTPClientError) {
            response = try context.api.client.stream(
                method: "GET", path: "/v1/events", headers: ["Accept": "text/event-stream"], firstByte: .seconds(30),
                idle: .seconds(60)
            ) { bytes in printer.take(bytes) }
        } catch {
            if printer.done { return .success }
            // The stream was open and the daemon closed it (it stopped): the end of the events, not a failure.
            if printer.opened, error.kind == .malformedResponse {
                context.console.err("the daemon ended the stream")
                return .success
            }
            throw CLIError(error.message)
        }
        guard (200..<300).contains(response.status) else {
            throw DaemonAPI.failure(status: response.status, body: response.body, method: "GET", path: "/v1/events")
        }
        return .success
    }

    /// Turns the stream's bytes into printed events; says when to stop.
    final class Printer: @unchecked Sendable {
        let json: Bool
        let limit: Int?
        let console: Console
        private var reader = ServerEventStream()
        private var printed = 0
        /// Whether the stream's first bytes arrived (it was open).
        private(set) var opened = false

        init(json: Bool, limit: Int?, console: Console) {
            self.json = json
            self.limit = limit
            self.console = console
        }

        /// Whether `--count` events were printed.
        var done: Bool { limit.map { printed >= $0 } ?? false }

        /// Prints the events `bytes` complete; false once enough were printed (the stream is then closed).
        func take(_ bytes: [UInt8]) -> Bool {
            if !opened {
                opened = true
                console.err("following events (interrupt to stop)")
            }
            for message in reader.feed(bytes) where !done {
                if json {
                    console.out(message.data)
                } else if let event = try? APICoding.decoder().decode(ServerEvent.self, from: Data(message.data.utf8)) {
                    console.out(Self.line(event))
                } else {
                    console.out("\(message.event) \(message.data)")
                }
                printed += 1
            }
            return !done
        }

        /// `TIME EVENT DEVICE what`.
        static func line(_ e: ServerEvent) -> String {
            var parts = [TimeText.iso8601(e.time), e.event.rawValue, e.device ?? "-"]
            if let finding = e.finding {
                parts.append(
                    e.event == .resolved ? finding.kind.rawValue + (e.adopted == true ? ", adopted" : "") : finding.summary)
            }
            if let page = e.page { parts.append("page \(page)" + (e.registers.map { ": " + $0.joined(separator: ", ") } ?? "")) }
            if let job = e.job {
                var text = "\(job.kind) \(job.pageId) job \(job.id) by \(job.who)"
                if let p = job.progress { text += ": \(p.phase) \(p.done)/\(p.total)" }
                if let ok = e.succeeded { text += ok ? ": succeeded" : ": did not succeed" }
                parts.append(text)
            }
            return parts.joined(separator: "  ")
        }
    }
}
