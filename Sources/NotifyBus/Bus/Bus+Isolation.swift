import Dispatch
import Foundation
import Synchronization

// MARK: - @MainActor and async observers

/// The home of ``Bus``'s overloads that take a `@MainActor` handler.
///
/// Swift does not tell two methods of one type apart by the isolation of a
/// closure parameter (`@MainActor (M) -> Void` and `@Sendable (M) -> Void` are an
/// "invalid redeclaration"), so these overloads live in an extension of this
/// protocol, to which only ``Bus`` conforms. Call them as methods of the bus.
public protocol MainActorObserving: AnyObject, Sendable {}

extension Bus: MainActorObserving {}

extension MainActorObserving where Self == Bus {
    /// Adds a token observer whose handler runs on the main actor, like SF-0011's
    /// `addObserver(of:for:using:)` for a `MainActorMessage`.
    ///
    /// Posted on the main actor, the handler runs synchronously, in registration order
    /// among the message's other observers, like any observer. Posted from another
    /// thread, the delivery is queued for the main actor: the trace records the post,
    /// ``TraceEvent/Kind/enqueued(post:observer:)`` at once, and the delivery (or skip,
    /// if the owner is gone by then) when it runs. Deliveries queued by one bus run in
    /// the order they were queued; an observer removed before its turn is not called.
    ///
    /// ```swift
    /// @MainActor final class CartBadge {
    ///     var items = 0
    ///     var token: ObservationToken?
    ///     func start(bus: Bus) {
    ///         token = bus.observe(CartChanged.self, owner: self) { @MainActor [weak self] note in
    ///             self?.items = note.items
    ///         }
    ///     }
    /// }
    /// ```
    /// For a message that is not a ``MainActorMessage`` the closure says `@MainActor`:
    /// overload resolution does not look at the caller's isolation, so an unannotated
    /// closure picks the `@Sendable` overload (README, "Observers on the main actor").
    /// - Returns: A token; the observer is removed when its last copy is released.
    @_disfavoredOverload
    public func observe<M: BusMessage>(
        _ type: M.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        _ handler: @escaping @MainActor @Sendable (M) -> Void
    ) -> ObservationToken {
        self.observeOnMainActor(sender: sender, owner: owner, callSite: CallSite(file: file, line: line), handler)
    }

    /// Adds a token observer of a ``MainActorMessage`` whose handler runs on the main
    /// actor: the overload a closure written at the call site picks, without an
    /// annotation, as SF-0011's `addObserver(of:for:using:)` does for a `MainActorMessage`.
    ///
    /// ```swift
    /// token = bus.observe(KeyboardWillShow.self, owner: self) { [weak self] note in
    ///     self?.formOffset = note.endFrame.height      // a @MainActor screen's state
    /// }
    /// ```
    /// Delivery is as for any `@MainActor` handler: synchronous when posted on the main
    /// actor, queued for it (and recorded as `enqueued`) when posted from another thread.
    /// - Returns: A token; the observer is removed when its last copy is released.
    public func observe<M: MainActorMessage>(
        _ type: M.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        _ handler: @escaping @MainActor @Sendable (M) -> Void
    ) -> ObservationToken {
        self.observeOnMainActor(sender: sender, owner: owner, callSite: CallSite(file: file, line: line), handler)
    }
}

extension Bus {
    /// Adds a token observer with an `async` handler, like SF-0011's observers of an
    /// `AsyncMessage`.
    ///
    /// Each post is queued for the observer (recorded as
    /// ``TraceEvent/Kind/enqueued(post:observer:)``) and delivered by a task of the
    /// observer's own, one message after another in the order posted: the next
    /// call starts when the previous one returns. The handler runs on the actor
    /// the closure is isolated to; written in a `@MainActor` class, that is the
    /// main actor, without an annotation:
    ///
    /// ```swift
    /// token = bus.observe(KeyboardWillShow.self, owner: self) { [weak self] note async in
    ///     self?.formOffset = note.endFrame.height
    /// }
    /// ```
    /// Removing the observer (or releasing its token) stops the deliveries not yet
    /// started; one that has started finishes.
    /// - Returns: A token; the observer is removed when its last copy is released.
    @_disfavoredOverload
    public func observe<M: BusMessage>(
        _ type: M.Type, sender: AnyObject? = nil, owner: AnyObject? = nil,
        file: String = #fileID, line: Int = #line,
        @_inheritActorContext _ handler: @escaping @Sendable @isolated(any) (M) async -> Void
    ) -> ObservationToken {
        let (stream, continuation) = AsyncStream.makeStream(of: Queued<M>.self, bufferingPolicy: .unbounded)
        let observer = add(M.self, named: nil, sender: sender, owner: owner, kind: .token,
                           callSite: CallSite(file: file, line: line), handler: { _ in }, mailbox: Mailbox(continuation))
        Task { [weak self, observer] in
            for await queued in stream {
                guard let bus = self else { return }
                var owner: AnyObject?
                guard bus.admit(observer, post: queued.post, owner: &owner) else { continue }
                await handler(queued.message)
                withExtendedLifetime(owner) {}
            }
        }
        return ObservationToken(box: TokenBox(observer: observer))
    }

    /// Delivers to an observer whose handler does not run on the posting thread.
    func deliverElsewhere<M: BusMessage>(_ message: M, to observer: TypedObserver<M>, post: UInt64) {
        switch observer.dispatch {
        case .mainActor:
            if MainActorCheck.isCurrent {
                // Already on the main actor: synchronous, in registration order.
                var owner: AnyObject?
                guard admit(observer, post: post, owner: &owner) else { return }
                if let handler = observer.mainActorHandler { MainActorCheck.call(handler, with: message) }
                withExtendedLifetime(owner) {}
                return
            }
            let queue = mainActorQueue
            _ = enqueue(observer, post: post) {
                queue.append(MainActorQueue.Job { [weak self] in
                    self?.runOnMainActor(message, observer: observer, post: post)
                })
            }
        case .async:
            _ = enqueue(observer, post: post) { observer.mailbox?.continuation.yield(Queued(message: message, post: post)) }
        case .postingThread:
            preconditionFailure("a posting-thread observer is delivered by post(_:sender:)")
        }
    }

    /// Runs a queued delivery on the main actor: the observer and its owner are checked
    /// now, as a post would check them; the handler's own posts are its reactions.
    @MainActor
    private func runOnMainActor<M: BusMessage>(_ message: M, observer: TypedObserver<M>, post: UInt64) {
        var owner: AnyObject?
        guard admit(observer, post: post, owner: &owner) else { return }
        if isRecording {
            CurrentPost.with(bus: self, post: post) { observer.mainActorHandler?(message) }
        } else {
            observer.mainActorHandler?(message)
        }
        withExtendedLifetime(owner) {}
    }
}

/// The deliveries a bus has queued for the main actor, run in the order queued
/// by one task at a time.
final class MainActorQueue: Sendable {
    struct Job: Sendable {
        let run: @MainActor @Sendable () -> Void
        init(_ run: @escaping @MainActor @Sendable () -> Void) { self.run = run }
    }

    private struct Pending {
        var jobs: [Job] = []
        var scheduled = false
    }

    // `Locked`, not `Mutex`: ThreadSanitizer sees a pthread mutex and not `Mutex`'s futex (Locked.swift).
    private let pending = Locked(Pending())

    /// Queues `job`, scheduling a drain on the main actor unless one is due.
    func append(_ job: Job) {
        let schedule = pending.withLock { pending in
            pending.jobs.append(job)
            defer { pending.scheduled = true }
            return !pending.scheduled
        }
        if schedule { Task { @MainActor in self.drain() } }
    }

    @MainActor
    private func drain() {
        while true {
            let jobs = pending.withLock { pending in
                let jobs = pending.jobs
                pending.jobs = []
                if jobs.isEmpty { pending.scheduled = false }
                return jobs
            }
            if jobs.isEmpty { return }
            for job in jobs { job.run() }
        }
    }
}

/// Whether the caller runs on the main actor, without trapping when it does not.
///
/// The main actor's executor is the main dispatch queue: on the main thread, or, once
/// the main thread has handed the queue over (`dispatch_main`, as test runners on
/// Linux do), on whichever thread drains that queue. The queue is tagged once.
enum MainActorCheck {
    private static let key: DispatchSpecificKey<UInt8> = {
        let key = DispatchSpecificKey<UInt8>()
        DispatchQueue.main.setSpecific(key: key, value: 1)
        return key
    }()

    static var isCurrent: Bool {
        isMainThread || DispatchQueue.getSpecific(key: key) != nil
    }

    /// Each thread's answer to "am I the main thread", cached in a thread-specific slot:
    /// 1 the main thread, 2 another, 0 not yet asked.
    private static let threadKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "pthread_key_create failed")
        return key
    }()

    /// `Thread.isMainThread`, asked once per thread. On Linux Foundation answers it with two system
    /// calls (`gettid() == getpid()`): 1.5 million of them in `notifybus-bench mainactor`, most of a
    /// post's wall time, and invisible to callgrind, which counts user-space instructions only.
    /// A thread never becomes, or stops being, the main thread, so the first answer holds.
    static var isMainThread: Bool {
        switch Int(bitPattern: pthread_getspecific(threadKey)) {
        case 1: return true
        case 2: return false
        default:
            let main = Thread.isMainThread
            pthread_setspecific(threadKey, UnsafeRawPointer(bitPattern: main ? 1 : 2))
            return main
        }
    }

    /// Calls a `@MainActor` handler once ``isCurrent`` said the caller runs on the main actor.
    ///
    /// `MainActor.assumeIsolated` would check that again in the concurrency runtime, which costs
    /// about 1,000 instructions a call on Linux (callgrind: `swift_task_isCurrentExecutor`), more
    /// than the rest of a post; ``isCurrent`` costs about 50 on the main thread. The handler is
    /// called as what it is, a function of the main actor's, without that second check: the same
    /// conversion `assumeIsolated` makes after its check. Debug builds (the tests) keep the runtime's
    /// check, so that a wrong answer of ``isCurrent`` traps there.
    @inline(__always)
    static func call<M: Sendable>(_ handler: @escaping @MainActor @Sendable (M) -> Void, with message: M) {
        #if DEBUG
        MainActor.assumeIsolated { handler(message) }
        #else
        unsafeBitCast(handler, to: (@Sendable (M) -> Void).self)(message)
        #endif
    }
}

extension Bus {
    /// The token observer both `@MainActor` overloads add.
    fileprivate func observeOnMainActor<M: BusMessage>(
        sender: AnyObject?, owner: AnyObject?, callSite: CallSite, _ handler: @escaping @MainActor @Sendable (M) -> Void
    ) -> ObservationToken {
        let observer = add(M.self, named: nil, sender: sender, owner: owner, kind: .token,
                           callSite: callSite, handler: { _ in }, mainActorHandler: handler)
        return ObservationToken(box: TokenBox(observer: observer))
    }
}
