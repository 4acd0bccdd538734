/// One viewer's connection. Fields marked "lock" are guarded by the server's lock (the
/// graph's observer writes them); the others belong to the server thread alone.
///
/// The fields skip Swift's run-time exclusivity checks (each `pending` write paid one, about
/// 60 instructions, three times an event): the lock or the server thread already makes every
/// access exclusive.
final class ViewerConnection: @unchecked Sendable { // see field comments
    /// The socket (server thread).
    let fd: Int32

    /// Lines not yet handed to the server thread (lock).
    @exclusivity(unchecked) var pending = LogBuffer(capacity: 1 << 16)
    /// The connection's own `seq` of the last line written (lock).
    @exclusivity(unchecked) var seq: UInt64 = 0
    /// The `seq` of the last line handed to the server thread (lock).
    @exclusivity(unchecked) var handedSeq: UInt64 = 0
    /// Event bytes in `pending` (snapshots excluded) (lock).
    @exclusivity(unchecked) var eventBytes = 0
    /// Events in `pending` (lock).
    @exclusivity(unchecked) var pendingEvents = 0
    /// Event bytes handed to the server thread and maybe not yet written (lock).
    @exclusivity(unchecked) var inFlightEventBytes = 0
    /// Overflowed: events are counted, not buffered, until the resync (lock).
    @exclusivity(unchecked) var overflowed = false
    /// Events dropped since the overflow (lock).
    @exclusivity(unchecked) var skipped = 0

    /// The bytes being written and how far (server thread; swapped with `pending` under lock).
    @exclusivity(unchecked) var sending = LogBuffer(capacity: 1 << 16)
    @exclusivity(unchecked) var sent = 0
    /// Bytes read and not yet a complete line (server thread).
    @exclusivity(unchecked) var input: [UInt8] = []
    /// The viewer shut down its sending side: no more reads (server thread).
    @exclusivity(unchecked) var readClosed = false
    /// Set when the connection must be closed once its last line (an error line) is out:
    /// it takes no more events (lock: it is marked `overflowed` too, so the event path skips
    /// it without a check of its own, and `closing` keeps it from being resynced).
    @exclusivity(unchecked) var closeAfterSending = false
    /// The viewer asked for the program's own usage (`{"cmd":"usage"}`; lock).
    @exclusivity(unchecked) var wantsUsage = false
    /// When a closing connection is closed even if the viewer has not read everything
    /// (server thread).
    @exclusivity(unchecked) var closeDeadline = Double.infinity

    /// `nanosecondTimes`: as the server's own buffer (`LogBuffer.nanosecondTimes`), so the
    /// connection's snapshot and resync lines write `t` as its events do.
    init(fd: Int32, nanosecondTimes: Bool) {
        self.fd = fd
        pending.nanosecondTimes = nanosecondTimes
        sending.nanosecondTimes = nanosecondTimes
    }

    var hasUnsent: Bool { sent < sending.count }
}
