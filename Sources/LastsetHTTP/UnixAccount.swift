import Glibc

/// A Unix peer's user name and every group it is in (primary and supplementary), by name.
public struct UnixAccount: Sendable, Equatable {
    /// The user name, or nil when the uid has no passwd entry.
    public var user: String?
    /// Names of the peer's groups (a gid without a group entry appears as its number).
    public var groups: [String]

    /// Creates an account description.
    public init(user: String?, groups: [String]) {
        self.user = user
        self.groups = groups
    }

    /// Looks the uid up in the passwd database (getpwuid_r) and its groups with getgrouplist; `gid` is the
    /// peer's group as the kernel reported it (SO_PEERCRED), always included.
    public static func lookup(uid: UInt32, gid: UInt32) -> UnixAccount {
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        guard getpwuid_r(uid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let namePointer = entry.pw_name
        else {
            return UnixAccount(user: nil, groups: [groupName(gid)])
        }
        let user = String(cString: namePointer)
        var count: Int32 = 64
        var gids = [gid_t](repeating: 0, count: Int(count))
        if getgrouplist(namePointer, gid, &gids, &count) < 0 {
            // Too small: count now holds the number needed.
            gids = [gid_t](repeating: 0, count: Int(max(count, 1)))
            if getgrouplist(namePointer, gid, &gids, &count) < 0 { count = 0 }
        }
        var all = Set(gids.prefix(Int(max(0, count))))
        all.insert(gid)
        return UnixAccount(user: user, groups: all.sorted().map(groupName))
    }

    private static func groupName(_ gid: gid_t) -> String {
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        var entry = group()
        var result: UnsafeMutablePointer<group>?
        guard getgrgid_r(gid, &entry, &buffer, buffer.count, &result) == 0, result != nil, let name = entry.gr_name else {
            return "\(gid)"
        }
        return String(cString: name)
    }
}
