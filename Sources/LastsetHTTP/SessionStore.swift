import Foundation
import LastsetCore
import Synchronization

/// The open browser sessions, in memory: a restart signs everyone out, sign-out ends one at once.
public final class SessionStore: Sendable {
    /// How long a session lasts from sign-in.
    public let lifetime: Duration
    /// The most sessions kept; signing in beyond it ends the oldest.
    public let capacity: Int
    private let sessions = Mutex<[String: Session]>([:])

    /// Creates an empty store (default: 8-hour sessions, at most 1000 open).
    public init(lifetime: Duration = .seconds(8 * 3600), capacity: Int = 1000) {
        self.lifetime = lifetime
        self.capacity = max(1, capacity)
    }

    /// Opens a session for a token; its id and CSRF token are 256-bit random values.
    func create(tokenName: String, role: APIRole, digest: [UInt8], now: Date) -> Session {
        let session = Session(
            id: Self.randomToken(), csrfToken: Self.randomToken(), tokenName: tokenName, role: role, digest: digest,
            createdAt: now, expiresAt: now.addingTimeInterval(Double(lifetime.components.seconds)))
        sessions.withLock { open in
            open = open.filter { $0.value.expiresAt > now }
            while open.count >= capacity, let oldest = open.values.min(by: { $0.createdAt < $1.createdAt }) {
                open[oldest.id] = nil
            }
            open[session.id] = session
        }
        return session
    }

    /// The open, unexpired session with this id (an expired one is removed).
    public func lookup(_ id: String, now: Date = Date()) -> Session? {
        sessions.withLock { open in
            guard let session = open[id] else { return nil }
            guard session.expiresAt > now else {
                open[id] = nil
                return nil
            }
            return session
        }
    }

    /// Ends a session; true when it was open.
    @discardableResult
    public func end(_ id: String) -> Bool {
        sessions.withLock { $0.removeValue(forKey: id) != nil }
    }

    /// How many sessions are open (expired ones included until they are next touched).
    public var count: Int { sessions.withLock { $0.count } }

    /// 32 random bytes (the system's CSPRNG: getrandom on Linux) as URL-safe base64 without padding.
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
