import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The source of event timestamps: nanoseconds since an origin.
///
/// Injected so that traces are deterministic in tests and in recorded
/// scenarios, where time moves only when the scenario says so.
public struct TraceClock: Sendable {
    /// The injected reading; unused by the monotonic clock, read inline from `origin`.
    private let read: @Sendable () -> UInt64
    private let isMonotonic: Bool
    private let origin: UInt64

    /// A clock that calls `read` for each timestamp.
    public init(_ read: @escaping @Sendable () -> UInt64) {
        self.read = read
        isMonotonic = false
        origin = 0
    }

    private init(monotonicSince origin: UInt64) {
        read = { 0 }
        isMonotonic = true
        self.origin = origin
    }

    /// The current reading.
    @inline(__always)
    public func now() -> UInt64 {
        // The flag, not an optional closure: unwrapping one retains its context on every read.
        if isMonotonic { return Self.monotonicNanoseconds() &- origin }
        return read()
    }

    /// Monotonic time since this clock was made.
    public static func monotonic() -> TraceClock {
        // clock_gettime directly, and no closure: ContinuousClock's Duration arithmetic, and a
        // call through a closure context, cost more than the read itself on a path that runs
        // once per recorded event. CLOCK_MONOTONIC, not _COARSE: the trace measures queueing
        // delays and handler times in nanoseconds (docs/TRACE_FORMAT.md).
        TraceClock(monotonicSince: monotonicNanoseconds())
    }

    /// The origin of a ``monotonic()`` clock, which a bus reads inline; `nil` for any other.
    var monotonicOrigin: UInt64? { isMonotonic ? origin : nil }

    @inline(__always)
    static func monotonicNanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}

/// A clock that moves only when told to: the scenario runner's and the tests'.
public final class ManualClock: Sendable {
    private let nanoseconds = Atomic<UInt64>(0)

    /// A clock that reads `start` nanoseconds until it is advanced.
    public init(start: UInt64 = 0) {
        nanoseconds.store(start, ordering: .relaxed)
    }

    /// The reading, in nanoseconds.
    public var now: UInt64 { nanoseconds.load(ordering: .relaxed) }

    /// Moves the clock forward. Negative and NaN values do not move it; a move past the last
    /// reading stops there (the clock saturates rather than traps). The lifecycle model refuses
    /// such times before they get here (its 100-year limit). A trace stores readings up to
    /// `Int64.max` nanoseconds (about 292 years) and later ones as that (`docs/TRACE_FORMAT.md`).
    public func advance(bySeconds seconds: Double) {
        let nanos = max(0, seconds) * 1_000_000_000
        // `UInt64(_:)` traps at 2^64 and above; Double(UInt64.max) rounds up to 2^64.
        let delta = nanos.isNaN ? 0 : nanos >= Double(UInt64.max) ? UInt64.max : UInt64(nanos.rounded())
        add(delta)
    }

    /// Moves the clock forward to `nanoseconds`; never backwards.
    public func advance(toNanoseconds target: UInt64) {
        let now = self.now
        if target > now { add(target - now) }
    }

    /// Adds `delta`, saturating at `UInt64.max`.
    private func add(_ delta: UInt64) {
        var current = nanoseconds.load(ordering: .relaxed)
        while true {
            let (sum, overflow) = current.addingReportingOverflow(delta)
            let (exchanged, original) = nanoseconds.compareExchange(
                expected: current, desired: overflow ? .max : sum, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// The clock as a ``TraceClock``.
    public var traceClock: TraceClock { TraceClock { [self] in self.now } }
}
