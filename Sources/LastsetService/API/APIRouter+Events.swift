import LastsetCore
import LastsetHTTP

/// `GET /v1/events`: the daemon's events as server-sent events (docs/API.md).
extension APIRouter {
    /// A stream of every event from now on — after the events a client reconnecting with `Last-Event-ID` missed, or a
    /// `gap` event (`EventReplay`) —: `text/event-stream`, one `id`/`event`/`data` block per event, a comment after each
    /// silence; 503 `shutting_down` once the daemon is stopping.
    func streamEvents(_ call: APICall) throws -> HTTPResponse {
        guard let stream = events?.subscribe(lastEventID: call.request.headers["last-event-id"]) else {
            throw APIError(status: 503, code: .shuttingDown, message: "lastsetd is shutting down and sends no events")
        }
        var response = HTTPResponse(
            status: 200,
            headers: ["Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store", "X-Accel-Buffering": "no"])
        response.stream = stream
        return response
    }
}
