import Foundation
import LastsetClient
import LastsetCore
import LastsetFormats

/// `lastset events [--count N]`: follows `GET /v1/events` from a terminal — machine findings, drift, jobs' start,
/// progress and end — one line per event (`--json`: one JSON object per line) until interrupted, the daemon stops,
/// or `--count` events have been printed. A connection cut while open is reopened with `Last-Event-ID` (the missed
/// events follow, or a `gap` event says some were lost), after 0.5 s, 1 s, 2 s … at most 8 s; after ten attempts in a
/// row that do not open it, the command gives up.
struct Events: Command {
    /// The command's shape.
    static let spec = CommandSpec(
        name: "events",
        abstract: "Follow the daemon's events: replaced or reset machines, drift, jobs (until interrupted).",
        discussion: """
            One line per event: time, event, device, what happened. Events: replaced, factoryReset, anotherModel,
            changedElsewhere, resolved (docs/REPLACEMENT.md), drift, driftCleared, backup (docs/AS-FOUND.md), jobStarted,
            jobProgress, jobFinished, and gap (events were missed: the state is to be fetched again). With --json each event is one JSON object
            on its own line (GET /v1/events' data). A line on stderr says when the stream is open. A connection cut
            while open is reopened with Last-Event-ID (backoff 0.5 s doubling to 8 s, ten failed attempts in a row end
            the command, exit 1). Exit 0 when --count events were printed or the daemon stopped.
            """,
        options: [.value("--count", "N", "Stop after N events (1-1000000)")])

    /// Reopen attempts in a row that may fail before the command gives up.
    static let attempts = 10

    /// `--count`.
    let count: Int?

    /// Takes --count.
    init(_ arguments: ParsedArguments) throws(UsageError) {
        count = try arguments.integer("--count", in: 1...1_000_000)
    }

    /// Prints each event as it arrives; reopens a cut stream with the last event id.
    func run(_ context: CommandContext) throws(CLIError) -> ExitCode {
        let printer = Printer(json: context.options.json, limit: count, console: context.console)
        var failures = 0
        while true {
            var headers = ["Accept": "text/event-stream"]
            if let id = printer.lastEventId { headers["Last-Event-ID"] = id }
            let outcome: Result<HTTPClientResponse, HTTPClientError>
            do throws(HTTPClientError) {
                outcome = .success(
                    try context.api.client.stream(
                        method: "GET", path: "/v1/events", headers: headers, firstByte: .seconds(30), idle: .seconds(60)
                    ) { bytes in printer.take(bytes) })
            } catch {
                outcome = .failure(error)
            }
            if printer.done { return .success }
            if printer.stopping {
                context.console.err("the daemon stopped: the stream ended")
                return .success
            }
            let cut: String
            switch outcome {
            case .success(let response):
                guard (200..<300).contains(response.status) else {
                    throw DaemonAPI.failure(status: response.status, body: response.body, method: "GET", path: "/v1/events")
                }
                cut = "the stream ended"
            case .failure(let error):
                // Never open: the daemon is not there (only a stream that was open is reopened).
                guard printer.opened else { throw CLIError(error.message) }
                cut = error.message
            }
            failures = printer.reopened ? 1 : failures + 1
            guard failures <= Self.attempts else {
                throw CLIError("the events stream was cut and could not be reopened (\(Self.attempts) attempts): \(cut)")
            }
            let delay = Self.delay(attempt: failures)
            context.console.err(
                "the stream was cut (\(cut)); reopening in \(delay) s"
                    + (printer.lastEventId.map { " with Last-Event-ID \($0)" } ?? ""))
            printer.restart()
            Thread.sleep(forTimeInterval: delay)
        }
    }

    /// The wait before reopen attempt `attempt` (1…): 0.5 s doubling, at most 8 s.
    static func delay(attempt: Int) -> Double { min(8.0, 0.5 * Double(1 << min(max(attempt - 1, 0), 4))) }

    /// Turns the stream's bytes into printed events; says when to stop.
    final class Printer: @unchecked Sendable {
        let json: Bool
        let limit: Int?
        let console: Console
        private var reader = ServerEventStream()
        private var printed = 0
        /// Whether the stream's first bytes arrived (it was open).
        private(set) var opened = false
        /// Whether bytes arrived since the last `restart` (the stream was reopened).
        private(set) var reopened = false
        /// The last event id read (sent as `Last-Event-ID` when the stream is reopened).
        private(set) var lastEventId: String?

        init(json: Bool, limit: Int?, console: Console) {
            self.json = json
            self.limit = limit
            self.console = console
        }

        /// Whether `--count` events were printed.
        var done: Bool { limit.map { printed >= $0 } ?? false }

        /// Whether the daemon said it is stopping (the stream ended on purpose).
        var stopping: Bool { reader.stopping }

        /// Before reopening: a block cut in the middle is dropped (the daemon sends it again), the last id is kept.
        func restart() {
            reader = ServerEventStream()
            reopened = false
        }

        /// Prints the events `bytes` complete; false once enough were printed (the stream is then closed).
        func take(_ bytes: [UInt8]) -> Bool {
            if !opened {
                opened = true
                console.err("following events (interrupt to stop)")
            } else if !reopened {
                console.err("the stream is open again")
            }
            reopened = true
            let messages = reader.feed(bytes)
            lastEventId = reader.lastEventId ?? lastEventId
            for message in messages where !done {
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
            if let reason = e.reason { parts.append(reason) }
            if let page = e.page { parts.append("page \(page)" + (e.registers.map { ": " + $0.joined(separator: ", ") } ?? "")) }
            if let summary = e.summary { parts.append(summary) }
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
