#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value behind a `pthread_mutex_t`, with `Mutex`'s `withLock` shape.
///
/// Why not `Synchronization.Mutex`: on Linux it locks with futex calls made
/// inside the standard library, which ThreadSanitizer cannot see, so every
/// access it protects is reported as a race (checked with a 10-line program
/// under `swift run --sanitize=thread`). A pthread mutex is intercepted by
/// TSan, which keeps `swift build --sanitize=thread` a real check. It costs
/// about the same uncontended.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // The mutex already guarantees exclusive access; the runtime's dynamic
    // exclusivity check on top of it costs a TLS lookup per access.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    package func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}

// @unchecked: `value` is only touched between pthread_mutex_lock and
// pthread_mutex_unlock on `mutex`, which lives as long as the object.
extension Locked: @unchecked Sendable where Value: Sendable {}
