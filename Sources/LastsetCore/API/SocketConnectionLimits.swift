/// How many connections each user may hold on the API's Unix socket (issue 19, defect 15).
///
/// Anyone the socket's mode lets in connects before any role check, and each connection holds one of the
/// listener's slots (one thread each) for as long as its request takes to arrive. 64 connections of one user,
/// dribbling header lines, used to take every slot. The rule, decided when a connection is accepted, by the
/// peer's uid (SO_PEERCRED):
/// 1. one uid holds at most `perUser` connections (root and the daemon's own user too);
/// 2. users other than the privileged ones (root, the daemon's own user) hold at most `total - reserved`
///    together, so the last `reserved` slots are always there for an administrator;
/// 3. and never more than `total` in all.
/// A refused connection is answered 503 `too_many_connections` and closed at once.
public struct SocketConnectionLimits: Hashable, Sendable {
    /// The listener's connection limit (libmicrohttpd's).
    public var total: Int
    /// The most connections one uid may hold (`api.socketConnectionsPerUser`).
    public var perUser: Int
    /// Slots only privileged uids may take.
    public var reserved: Int
    /// root and the daemon's own uid.
    public var privileged: Set<UInt32>

    /// The listener's connection limit in the daemon.
    public static let listenerLimit = 64
    /// `api.socketConnectionsPerUser` when the config does not set it.
    public static let defaultPerUser = 8
    /// Slots kept for root and the daemon's own user.
    public static let defaultReserved = 8
    /// The largest `api.socketConnectionsPerUser`: every unprivileged slot.
    public static var maxPerUser: Int { listenerLimit - defaultReserved }

    /// Limits with every field given.
    public init(
        total: Int = listenerLimit, perUser: Int = defaultPerUser, reserved: Int = defaultReserved, privileged: Set<UInt32> = [0]
    ) {
        self.total = total
        self.perUser = perUser
        self.reserved = reserved
        self.privileged = privileged
    }

    /// Why a connection is refused; quotes the uid and the limit.
    public enum Refusal: Hashable, Sendable, CustomStringConvertible {
        /// The uid already holds `limit` connections.
        case perUser(uid: UInt32, limit: Int)
        /// Unprivileged users hold every slot they may (`limit`); the reserve is kept for root.
        case othersFull(uid: UInt32, limit: Int, reserved: Int)
        /// Every slot of the listener is in use.
        case full(limit: Int)

        /// The refusal as the client and the log see it.
        public var description: String {
            switch self {
            case .perUser(let uid, let limit):
                return
                    "uid \(uid) already holds \(limit) connections to the API socket, the most one user may (api.socketConnectionsPerUser); close one and try again"
            case .othersFull(let uid, let limit, let reserved):
                return
                    "uid \(uid): users other than root hold all \(limit) connections of the API socket open to them (\(reserved) are kept for root); try again"
            case .full(let limit):
                return "all \(limit) connections of the API socket are in use; try again"
            }
        }
    }

    /// Whether `uid` may open one more connection while `held` are open (connections per uid); nil: admitted.
    public func refusal(uid: UInt32, held: [UInt32: Int]) -> Refusal? {
        if held[uid, default: 0] >= perUser { return .perUser(uid: uid, limit: perUser) }
        if !privileged.contains(uid) {
            let others = held.filter { !privileged.contains($0.key) }.values.reduce(0, +)
            if others >= total - reserved { return .othersFull(uid: uid, limit: total - reserved, reserved: reserved) }
        }
        if held.values.reduce(0, +) >= total { return .full(limit: total) }
        return nil
    }
}
