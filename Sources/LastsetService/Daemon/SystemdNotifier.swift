import Foundation
import Glibc
import LastsetSystem

/// Why a notification could not be sent to the service manager.
public struct SystemdNotifierError: Error, Equatable, CustomStringConvertible {
    /// The NOTIFY_SOCKET value in use.
    public let socket: String
    /// The failed operation, e.g. "sendto".
    public let operation: String
    /// The errno of the failed call.
    public let errno: Int32

    /// "sd_notify to \"/run/systemd/notify\": sendto: Connection refused".
    public var description: String {
        "sd_notify to \"\(socket)\": \(operation): \(String(cString: strerror(errno)))"
    }
}

/// Talks to systemd over the documented `NOTIFY_SOCKET` datagram protocol (sd_notify(3)), without libsystemd.
///
/// Every call is a no-op when the process was not started with `NOTIFY_SOCKET` (e.g. run by hand or in tests).
public struct SystemdNotifier: Sendable {
    /// The NOTIFY_SOCKET value (a path, or an abstract name starting with "@"), or nil when not under systemd.
    public let socket: String?
    /// How often to call `watchdog()`: half of WATCHDOG_USEC, or nil when no watchdog is armed for this process.
    public let watchdogInterval: Duration?

    /// Reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        let socket = environment["NOTIFY_SOCKET"].flatMap { $0.isEmpty ? nil : $0 }
        self.socket = socket
        var interval: Duration?
        if let text = environment["WATCHDOG_USEC"], let usec = UInt64(text), usec > 0 {
            let pidMatches = environment["WATCHDOG_PID"].map { Int32($0) == getpid() } ?? true
            if pidMatches { interval = .microseconds(Int64(clamping: usec / 2)) }
        }
        watchdogInterval = interval
    }

    /// Whether notifications go anywhere.
    public var isEnabled: Bool { socket != nil }

    /// READY=1: configuration loaded and sockets bound.
    public func ready() throws(SystemdNotifierError) { try send("READY=1") }

    /// STOPPING=1: shutdown has begun.
    public func stopping() throws(SystemdNotifierError) { try send("STOPPING=1") }

    /// RELOADING=1 with the MONOTONIC_USEC timestamp systemd expects; send `ready()` when the reload is done.
    public func reloading() throws(SystemdNotifierError) {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let usec = UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
        try send("RELOADING=1\nMONOTONIC_USEC=\(usec)")
    }

    /// STATUS=…: a one-line status shown by `systemctl status` (newlines become spaces).
    public func status(_ text: String) throws(SystemdNotifierError) {
        try send("STATUS=" + text.replacingOccurrences(of: "\n", with: " "))
    }

    /// WATCHDOG=1: proves liveness; call every `watchdogInterval`.
    public func watchdog() throws(SystemdNotifierError) { try send("WATCHDOG=1") }

    /// Sends WATCHDOG=1 every `watchdogInterval` until the calling task is cancelled; returns at once when no
    /// watchdog is armed. Failed sends go to `onError` and the loop carries on.
    ///
    /// `check` is the daemon's self-check (a request through its own listener): while it fails no ping is sent,
    /// so systemd restarts a daemon whose API no longer answers instead of one that merely still runs.
    /// `onCheck` hears every change of its verdict (false when it starts failing, true when it recovers).
    public func runWatchdog(
        check: @Sendable () async -> Bool = { true }, onCheck: @Sendable (Bool) -> Void = { _ in },
        onError: @Sendable (SystemdNotifierError) -> Void = { _ in }
    ) async {
        guard isEnabled, let interval = watchdogInterval else { return }
        var healthy = true
        while !Task.isCancelled {
            let started = ContinuousClock.now
            let ok = await check()
            if ok != healthy {
                healthy = ok
                onCheck(ok)
            }
            if ok {
                do { try watchdog() } catch { onError(error) }
            }
            try? await Task.sleep(until: started.advanced(by: interval), clock: .continuous)
        }
    }

    /// Sends raw newline-separated assignments (e.g. "READY=1\nSTATUS=up") as one datagram.
    public func send(_ state: String) throws(SystemdNotifierError) {
        guard let socket else { return }
        // A path or, with a leading "@", the abstract namespace (leading NUL, no terminator); nothing relative.
        guard let address = try? UnixSocketAddress(socket, allowingAbstract: true), address.isAbstract || socket.hasPrefix("/")
        else {
            throw SystemdNotifierError(socket: socket, operation: "address", errno: EINVAL)
        }

        let fd = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw SystemdNotifierError(socket: socket, operation: "socket", errno: errno) }
        defer { close(fd) }
        // A stuck service manager must not hang the daemon: bound the send.
        var limit = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let payload = Array(state.utf8)
        let sent = payload.withUnsafeBytes { bytes in
            address.withSockaddr { sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), $0, $1) }
        }
        guard sent == payload.count else {
            throw SystemdNotifierError(socket: socket, operation: "sendto", errno: sent < 0 ? errno : EMSGSIZE)
        }
    }
}
