import LastsetFormats

/// Progress of a running capture or replay, for progress bars.
public struct JobProgress: Sendable, Hashable {
    /// What the job is doing (shown as text: `"writing"`, `"page heating"`).
    public var phase: JobPhase
    public var done: Int
    public var total: Int

    public init(phase: JobPhase, done: Int, total: Int) {
        self.phase = phase
        self.done = done
        self.total = total
    }
}

/// What a running job is doing; in JSON the text the API has always shown (`"checking identity"`).
public enum JobPhase: JSONFieldValue, Sendable, Hashable, CustomStringConvertible {
    /// A capture reading the page.
    case reading
    /// A replay reading the target's identity registers.
    case checkingIdentity
    /// A replay or dry run reading the target's current values (diff, rollback snapshot, "before").
    case readingCurrentValues
    /// A replay writing.
    case writing
    /// A replay's final pass.
    case verifying
    /// A replay restoring its snapshot (`onError: rollback`).
    case rollingBack
    /// A whole-machine apply at one of its pages.
    case page(String)
    /// A whole-machine apply past its last page.
    case done
    /// A scan probing units (`done` of `total` probes, every sweep counted).
    case scanning
    /// A phase this build does not know (sent by another version of the daemon).
    case other(String)

    public var description: String {
        switch self {
        case .reading: return "reading"
        case .checkingIdentity: return "checking identity"
        case .readingCurrentValues: return "reading current values"
        case .writing: return "writing"
        case .verifying: return "verifying"
        case .rollingBack: return "rolling back"
        case .page(let id): return "page \(id)"
        case .done: return "done"
        case .scanning: return "scanning"
        case .other(let text): return text
        }
    }

    /// The phase its text names.
    public init(_ text: String) {
        let known: [JobPhase] = [
            .reading, .checkingIdentity, .readingCurrentValues, .writing, .verifying, .rollingBack, .done, .scanning,
        ]
        if let phase = known.first(where: { $0.description == text }) {
            self = phase
        } else if text.hasPrefix("page "), text.count > 5 {
            self = .page(String(text.dropFirst(5)))
        } else {
            self = .other(text)
        }
    }

    public init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(description)
    }

    /// Its text.
    public func write(to w: inout JSONWriter) { w.string(description) }
}

/// Receives progress updates; called from the job's task.
public typealias ProgressHandler = @Sendable (JobProgress) -> Void

extension JobProgress: JSONRecord {
    /// What decoding starts from.
    public static let placeholder = JobProgress(phase: .reading, done: 0, total: 0)

    /// The fields, in key order.
    @inlinable
    public static func fields<F: JSONFields & ~Copyable>(_ f: inout F, _ r: inout Self) throws(F.Failure) {
        try f.field("done", &r.done)
        try f.field("phase", &r.phase)
        try f.field("total", &r.total)
    }
}
