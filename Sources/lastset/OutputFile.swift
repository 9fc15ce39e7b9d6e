import Foundation
import Glibc
import LastsetSystem

/// A file the CLI writes for its user (a backup, a certificate's files): never through a symbolic link, never over
/// an existing file unless `force` (then only over a regular file), always complete — written to a temporary file
/// beside it (`.NAME.partial-XXXXXX`), fsynced, then moved into place and its directory fsynced. A helper once
/// overwrote /etc/passwd through a link; every write of the CLI goes through here.
struct OutputFile {
    /// The path, absolute and lexical (`absolute`).
    let path: String
    /// Its directory.
    let directory: String
    /// Its last component.
    let name: String
    /// Whether an existing regular file may be replaced.
    let force: Bool
    /// What is written, for messages (`backup`, `certificate`).
    let what: String

    /// The file at `path` (relative to the working directory), checked by `check`.
    init(_ path: String, force: Bool, what: String) {
        self.path = Self.absolute(path)
        (directory, name) = Self.split(self.path)
        self.force = force
        self.what = what
    }

    /// `path` made absolute against the working directory, lexically: empty and `.` components dropped, nothing
    /// resolved — above all not a link at the path itself (Foundation's `standardizingPath` resolves links, and a
    /// file written "to" a link planted there must be refused, not written to where it points).
    static func absolute(_ path: String) -> String {
        let joined = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
        return "/" + joined.split(separator: "/").filter { $0 != "." }.joined(separator: "/")
    }

    /// The directory part and the last component of an absolute path made by `absolute`.
    static func split(_ path: String) -> (directory: String, name: String) {
        let parts = path.split(separator: "/")
        let name = parts.last.map(String.init) ?? ""
        return ("/" + parts.dropLast().joined(separator: "/"), name)
    }

    /// Refuses a link, a directory or anything but a regular file at the path, an existing file without `force`,
    /// and a directory that is missing or not one.
    func check() throws(CLIError) {
        var st = stat()
        if lstat(path, &st) == 0 {
            switch st.st_mode & S_IFMT {
            case S_IFLNK:
                throw CLIError(
                    "\(path) is a symbolic link: a \(what) is never written through a link (remove it, or choose another FILE)")
            case S_IFDIR:
                throw CLIError("\(path) is a directory: give the name of the file to write")
            case S_IFREG:
                if !force { throw CLIError("\(path) already exists: give --force to replace it, or choose another FILE") }
            default:
                throw CLIError("\(path) exists and is not a regular file (a FIFO, socket or device): choose another FILE")
            }
        } else if errno != ENOENT {
            throw CLIError("cannot check \(path): \(String(cString: strerror(errno)))")
        }
        guard stat(directory, &st) == 0 else {
            throw CLIError("cannot write \(path): its directory \(directory): \(String(cString: strerror(errno)))")
        }
        guard (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError("cannot write \(path): \(directory) is not a directory")
        }
    }

    /// A temporary file beside the path (mode 0600), open for writing: its descriptor and name. The caller closes
    /// it, and unlinks it unless `place` moved it.
    func temporary() throws(CLIError) -> (fd: Int32, path: String) {
        var template = Array((directory + "/." + name + ".partial-XXXXXX").utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else {
            throw CLIError("cannot create a temporary file in \(directory): \(String(cString: strerror(errno)))")
        }
        return (fd, String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// Moves the written temporary file to the path: without `force` never over a file (a link, failing with
    /// EEXIST, then the temporary name removed); with it a rename over the regular file. The directory is fsynced.
    func place(_ temporary: String) throws(CLIError) {
        if force {
            guard rename(temporary, path) == 0 else {
                throw CLIError("cannot move the \(what) to \(path): \(String(cString: strerror(errno)))")
            }
        } else {
            guard link(temporary, path) == 0 else {
                let code = errno
                if code == EEXIST {
                    throw CLIError(
                        "\(path) appeared while the \(what) was made: give --force to replace it, or choose another FILE")
                }
                throw CLIError("cannot create \(path): \(String(cString: strerror(code)))")
            }
            unlink(temporary)
        }
        let dfd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { if dfd >= 0 { close(dfd) } }
        guard dfd >= 0, fsync(dfd) == 0 else {
            throw CLIError(
                "\(path) is written but its directory \(directory) could not be fsynced: \(String(cString: strerror(errno)))")
        }
    }

    /// Writes `bytes` to the path: checked, written to a temporary file, fsynced, moved into place. `readable`: the
    /// file is for others to read too (0644 less the umask) rather than the temporary file's 0600.
    func write(_ bytes: [UInt8], readable: Bool = false) throws(CLIError) {
        try check()
        let (fd, temporary) = try self.temporary()
        var placed = false
        defer {
            close(fd)
            if !placed { unlink(temporary) }
        }
        if readable {
            let mask = umask(0o022)
            umask(mask)
            guard fchmod(fd, 0o644 & ~mask) == 0 else {
                throw CLIError("cannot set the mode of \(temporary): \(String(cString: strerror(errno)))")
            }
        }
        if let code = FileDescriptorWrite.all(fd, bytes) {
            throw CLIError("cannot write \(temporary): \(String(cString: strerror(code)))")
        }
        guard fsync(fd) == 0 else { throw CLIError("cannot fsync \(temporary): \(String(cString: strerror(errno)))") }
        try place(temporary)
        placed = true
    }
}
