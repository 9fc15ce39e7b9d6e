import Foundation
import LastsetFormats

/// What one register of an audit record went through: a capture's or an import's outcome, or a replay's
/// (`RegisterStatus`, whose cases are declared there once). Stored and sent as one flat string
/// (`captured`, `imported`, `verified`, `inDoubt`, …), a replay's status under its own name.
public enum AuditRegisterStatus: Sendable, Hashable, CaseIterable, RawRepresentable, JSONFieldValue {
    /// Capture: archived in the template.
    case captured
    /// Capture: its value broke a rule (see `message`), nothing archived.
    case invalid
    /// Import: part of the imported template.
    case imported
    /// Replay or dry run: the register's outcome.
    case replay(RegisterStatus)

    /// The audit form of a replay register status.
    public init(_ status: RegisterStatus) { self = .replay(status) }

    /// The status its stored name names; nil for any other string.
    public init?(rawValue: String) {
        switch rawValue {
        case "captured": self = .captured
        case "invalid": self = .invalid
        case "imported": self = .imported
        default:
            guard let status = RegisterStatus(rawValue: rawValue) else { return nil }
            self = .replay(status)
        }
    }

    /// Its stored name.
    public var rawValue: String {
        switch self {
        case .captured: return "captured"
        case .invalid: return "invalid"
        case .imported: return "imported"
        case .replay(let status): return status.rawValue
        }
    }

    /// Every status: a capture's, an import's, then every replay status.
    public static var allCases: [AuditRegisterStatus] { [.captured, .invalid, .imported] + RegisterStatus.allCases.map(Self.replay) }
}
