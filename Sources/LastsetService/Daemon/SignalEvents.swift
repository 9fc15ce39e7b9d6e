import Dispatch
import Glibc

/// Process signals delivered as an `AsyncStream`, read from Dispatch signal sources instead of a C handler.
public enum SignalEvents {
    /// A Unix signal number with a readable name.
    public struct Signal: Sendable, Hashable, CustomStringConvertible {
        /// The signal number, e.g. SIGTERM.
        public let rawValue: Int32
        /// Wraps a signal number.
        public init(rawValue: Int32) { self.rawValue = rawValue }
        /// SIGTERM: stop (systemd's stop request).
        public static let terminate = Signal(rawValue: SIGTERM)
        /// SIGINT: stop (Ctrl-C).
        public static let interrupt = Signal(rawValue: SIGINT)
        /// SIGHUP: reload the configuration (systemd's ExecReload).
        public static let hangup = Signal(rawValue: SIGHUP)

        /// "SIGTERM", "SIGINT", "SIGHUP" or "signal N".
        public var description: String {
            switch rawValue {
            case SIGTERM: return "SIGTERM"
            case SIGINT: return "SIGINT"
            case SIGHUP: return "SIGHUP"
            default: return "signal \(rawValue)"
            }
        }
    }

    /// Streams each arrival of `signals` (bursts of one signal may coalesce into one element).
    ///
    /// The signals' default actions are set to SIG_IGN first so they no longer kill the process; that stays
    /// in force after the stream ends. Ending the stream (or dropping its iterator) cancels the sources.
    public static func stream(_ signals: [Signal] = [.terminate, .interrupt, .hangup]) -> AsyncStream<Signal> {
        let (stream, continuation) = AsyncStream.makeStream(of: Signal.self, bufferingPolicy: .unbounded)
        let queue = DispatchQueue(label: "lastset.signals")
        var sources: [any DispatchSourceSignal] = []
        for signal in Set(signals) {
            Glibc.signal(signal.rawValue, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signal.rawValue, queue: queue)
            source.setEventHandler { @Sendable in continuation.yield(signal) }
            source.resume()
            sources.append(source)
        }
        let owner = SourceOwner(sources)
        continuation.onTermination = { @Sendable _ in owner.cancel() }
        return stream
    }

    /// Keeps the signal sources alive for as long as the stream is.
    private final class SourceOwner: @unchecked Sendable {
        private let sources: [any DispatchSourceSignal]
        init(_ sources: [any DispatchSourceSignal]) { self.sources = sources }
        func cancel() {
            for source in sources { source.cancel() }
        }
    }
}
