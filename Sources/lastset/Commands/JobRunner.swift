import Glibc
import LastsetCore

/// Follows a capture or replay job to its end: polls `GET /v1/jobs/{id}` every 100 ms, drawing a progress bar on
/// stderr when stdout is a terminal, then prints the report (or its JSON) and maps the outcome to an exit code.
struct JobRunner {
    /// Time between polls.
    static let pollInterval: useconds_t = 100_000

    /// The command's context.
    let context: CommandContext

    /// Waits for `job` to finish (returns at once when it already has) and returns the finished job.
    func wait(for job: JobInfo) throws(CLIError) -> JobInfo {
        var current = job
        let showProgress = context.console.stdoutIsTerminal && !context.options.json
        defer { if showProgress { context.console.clearProgress() } }
        while current.state == .running {
            if showProgress {
                context.console.progress(
                    ProgressBar.line(kind: current.kind.rawValue, pageId: current.pageId, progress: current.progress))
            }
            usleep(Self.pollInterval)
            do {
                current = try context.api.get(JobInfo.self, "/v1/jobs/\(DaemonAPI.escape(current.id))")
            } catch {
                throw CLIError(
                    "lost track of job \(job.id) (\(job.kind) of \(job.pageId) on \(job.device)): \(error.message)",
                    code: error.code)
            }
        }
        return current
    }

    /// Prints the finished job and returns 0 when it succeeded, 1 otherwise.
    func report(_ job: JobInfo) throws(CLIError) -> ExitCode {
        if context.options.json {
            try context.printJSON(job)
        } else {
            context.print(context.rendering(pages: job.pageId.split(separator: ",").map(String.init)) { TextView.job(job) })
        }
        return job.succeeded ? .success : .failure
    }

    /// Starts a job with `POST path` and the JSON `body`, waits for it and prints it.
    func run(path: String, body: some Encodable) throws(CLIError) -> ExitCode {
        let started = try context.api.post(JobInfo.self, path, json: body)
        return try report(wait(for: started))
    }
}
