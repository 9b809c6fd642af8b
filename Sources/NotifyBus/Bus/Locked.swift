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
///
/// Two values may share one mutex (``init(_:sharingLockOf:)``): holding it holds both, and
/// ``withLock(sharedWith:_:)`` gives access to both for the price of one lock.
package final class Locked<Value> {
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    /// The `Locked` whose mutex this one uses, kept alive with it; `nil` when this one made its own.
    private let mutexOwner: AnyObject?
    // The mutex already guarantees exclusive access; the runtime's dynamic
    // exclusivity check on top of it costs a TLS lookup per access.
    @exclusivity(unchecked) private var value: Value

    package init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        mutexOwner = nil
        precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
    }

    /// A value behind `other`'s mutex: locking either locks both, so the code that holds one
    /// must not take the other (the mutex is not recursive).
    package init<Other>(_ value: Value, sharingLockOf other: Locked<Other>) {
        self.value = value
        mutex = other.mutex
        mutexOwner = other
    }

    deinit {
        guard mutexOwner == nil else { return }
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

    /// Runs `body` with exclusive access to the value and to `other`'s, which shares this one's mutex
    /// (``init(_:sharingLockOf:)``): one lock for both.
    @inline(__always)
    package func withLock<Other, Result>(sharedWith other: Locked<Other>,
                                         _ body: (inout Value, inout Other) -> Result) -> Result {
        precondition(other.mutex == mutex, "withLock(sharedWith:) with a value behind another mutex")
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return body(&value, &other.value)
    }
}

// @unchecked: `value` is only touched between pthread_mutex_lock and
// pthread_mutex_unlock on `mutex`, which lives as long as the object (or as its
// `mutexOwner`, which the object keeps alive).
extension Locked: @unchecked Sendable where Value: Sendable {}
