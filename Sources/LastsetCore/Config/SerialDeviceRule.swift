/// Which files an `rtu://` endpoint may name: a terminal device and nothing else, decided before anything is
/// opened. libmodbus opens the path read-write and only then asks whether it is a terminal, and opening some
/// character devices acts by itself (`/dev/watchdog` arms the host's watchdog, `/dev/mem` is the memory).
public enum SerialDeviceRule {
    /// What `stat` said about the path.
    public enum FileKind: Sendable, Hashable {
        /// A character device with its major and minor numbers.
        case characterDevice(major: UInt32, minor: UInt32)
        case regularFile, directory, fifo, socket, blockDevice, other
    }

    /// nil when the path may be opened as a serial line, else why not. `subsystem` is the device's class in
    /// sysfs (`/sys/dev/char/MAJOR:MINOR/subsystem`, e.g. "tty"), nil when it has none (pty slaves).
    public static func refusal(_ kind: FileKind, subsystem: String?) -> String? {
        switch kind {
        case .characterDevice(let major, let minor):
            // 5:0 /dev/tty (the controlling terminal), 5:1 /dev/console, 5:2 /dev/ptmx: terminals, not lines.
            if major == 5 && minor <= 2 { return "the character device \(major):\(minor) is not a serial line" }
            // Unix98 pty slaves (devices.txt: 136–143) have no sysfs class; everything else must be a tty.
            if (136...143).contains(major) || subsystem == "tty" { return nil }
            return "the character device \(major):\(minor) is not a terminal (its class is \(subsystem ?? "none"))"
        case .regularFile: return "it is a regular file"
        case .directory: return "it is a directory"
        case .fifo: return "it is a FIFO"
        case .socket: return "it is a socket"
        case .blockDevice: return "it is a block device"
        case .other: return "it is not a character device"
        }
    }
}
