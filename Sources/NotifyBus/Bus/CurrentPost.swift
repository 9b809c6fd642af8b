#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The posts being delivered on the current thread, one frame per recording session,
/// so that a post made by a handler is recorded with its parent when both are in one
/// trace (one bus, or two buses recording into one sink). Only used while recording.
///
/// The thread-local value points at the innermost frame; frames live on the
/// stack of ``with(bus:post:_:)`` and link to the one they shadow.
enum CurrentPost {
    private struct Frame {
        let bus: UnsafeRawPointer
        let post: UInt64
        let previous: UnsafeMutableRawPointer?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// The post of `bus`'s session being delivered on this thread, if any. A session's
    /// identity is stable while it delivers: its bus holds it for the whole frame.
    static func value(for bus: Bus) -> UInt64? {
        let id = UnsafeRawPointer(Unmanaged.passUnretained(bus.session).toOpaque())
        var pointer = pthread_getspecific(key)
        while let frame = pointer?.assumingMemoryBound(to: Frame.self) {
            if frame.pointee.bus == id { return frame.pointee.post }
            pointer = frame.pointee.previous
        }
        return nil
    }

    /// Runs `body` as the delivery of `post` when there is one.
    static func with(bus: Bus, post: UInt64?, _ body: () -> Void) {
        if let post { with(bus: bus, post: post, body) } else { body() }
    }

    static func with(bus: Bus, post: UInt64, _ body: () -> Void) {
        let previous = pthread_getspecific(key)
        var frame = Frame(bus: UnsafeRawPointer(Unmanaged.passUnretained(bus.session).toOpaque()), post: post,
                          previous: previous)
        withUnsafeMutablePointer(to: &frame) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, previous) }
            body()
        }
    }
}
