import Foundation
import Glibc

/// The TCP API's token file, read under one rule for the daemon and for `--check-config` alike: a regular file
/// no other user can read or change (no "other" permission bits, not group-writable), holding a token of at
/// least 16 characters (surrounding whitespace and the final newline are not part of it).
enum TokenFile {
    /// The shortest accepted token.
    static let minimumLength = 16

    /// The token in `path`, or why the file is refused (quoting the path and the mode or length at fault).
    static func read(_ path: String) throws(DaemonError) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else {
            throw DaemonError("cannot read api.tcp.tokenFile \(path): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw DaemonError("api.tcp.tokenFile \(path) is not a regular file") }
        let mode = st.st_mode & 0o7777
        guard mode & 0o027 == 0 else {
            throw DaemonError(
                "api.tcp.tokenFile \(path) has mode \(String(mode, radix: 8, uppercase: false).leftPadded(4)):"
                    + " a token readable by other users or writable by the group is refused (chmod 0600 or 0640)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let code = (error as NSError).userInfo[NSUnderlyingErrorKey].flatMap { ($0 as? NSError)?.code } ?? Int(EIO)
            throw DaemonError("cannot read api.tcp.tokenFile \(path): \(String(cString: strerror(Int32(code))))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw DaemonError("api.tcp.tokenFile \(path) is not UTF-8 text")
        }
        let secret = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard secret.count >= minimumLength else {
            throw DaemonError(
                "the token in api.tcp.tokenFile \(path) has \(secret.count) characters; at least \(minimumLength) are needed")
        }
        return secret
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
