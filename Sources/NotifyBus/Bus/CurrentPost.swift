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
/// The thread-local value points at the thread's top: a word, allocated the first time the
/// thread delivers and freed when the thread exits, that points at the innermost frame.
/// Frames live on the stack of ``with(bus:post:_:)`` and link to the one they shadow; pushing
/// and popping one stores into the top word, where setting the thread-local value each time
/// cost two `pthread_setspecific` calls per recorded post.
enum CurrentPost {
    private struct Frame {
        let bus: UnsafeRawPointer
        let post: UInt64
        let previous: UnsafeMutableRawPointer?
    }

    /// A thread's top: the innermost frame, `nil` outside any delivery. Used on its thread only.
    typealias Top = UnsafeMutablePointer<UnsafeMutableRawPointer?>

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        // The top is freed when its thread exits: by then every frame was popped. (`free`, whose
        // parameter is optional: the destructor's is optional on Linux and not on Darwin.)
        precondition(pthread_key_create(&key, { free($0) }) == 0, "pthread_key_create failed")
        return key
    }()

    /// This thread's top, `nil` if it never delivered a recorded post.
    @inline(__always)
    private static var existingTop: Top? {
        pthread_getspecific(key)?.assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// This thread's top, made on first use: for a bus's post, which reads its parent and pushes its
    /// frame with one thread-local lookup.
    @inline(__always)
    static var top: Top {
        if let top = existingTop { return top }
        return makeTop()
    }

    private static func makeTop() -> Top {
        guard let memory = malloc(MemoryLayout<UnsafeMutableRawPointer?>.size) else { fatalError("out of memory") }
        let top = memory.bindMemory(to: UnsafeMutableRawPointer?.self, capacity: 1)
        top.initialize(to: nil)
        precondition(pthread_setspecific(key, top) == 0, "pthread_setspecific failed")
        return top
    }

    /// The post of `bus`'s session being delivered on this thread, if any. A session's
    /// identity is stable while it delivers: its bus holds it for the whole frame.
    static func value(for bus: Bus) -> UInt64? {
        guard let top = existingTop else { return nil }
        return value(for: bus, in: top)
    }

    /// ``value(for:)``, with this thread's top.
    @inline(__always)
    static func value(for bus: Bus, in top: Top) -> UInt64? {
        let id = UnsafeRawPointer(Unmanaged.passUnretained(bus.session).toOpaque())
        var pointer = top.pointee
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
        with(bus: bus, post: post, in: top, body)
    }

    /// ``with(bus:post:_:)``, with this thread's top.
    @inline(__always)
    static func with(bus: Bus, post: UInt64, in top: Top, _ body: () -> Void) {
        let previous = top.pointee
        var frame = Frame(bus: UnsafeRawPointer(Unmanaged.passUnretained(bus.session).toOpaque()), post: post,
                          previous: previous)
        withUnsafeMutablePointer(to: &frame) { pointer in
            top.pointee = UnsafeMutableRawPointer(pointer)
            defer { top.pointee = previous }
            body()
        }
    }
}
