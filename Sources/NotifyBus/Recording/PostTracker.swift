#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Ties each call of an observer of a real `NotificationCenter` to the post that made it, for
/// one bus recording one center: posts made through a ``RecordingNotificationCenter`` and posts
/// made to the real center directly (UIKit's), which nothing announces.
///
/// Foundation calls a post's observers one after another on the posting thread (an observer with
/// a queue too: the poster waits for it), so a post is open on one thread from its first observer
/// call to its last. A post through the recording center opens a frame on the thread before it
/// reaches Foundation and closes it when Foundation returns. A post made elsewhere is recognised
/// when its first observer here is called: a frame opens, listing the other participants the
/// post will reach (the observers here whose name and object match), and closes when the last of
/// them was called. An observer called for a notification that no open frame of this thread
/// expects for it is at a new post.
///
/// The participants are the recording centers' observers and the ``FoundationBridge`` of the same
/// bus and center: whichever sees a post first records it once, the others join it.
final class PostTracker: Sendable {
    /// Who takes part: an observer id of the bus, or one of a bridge's names.
    struct Participant: Sendable {
        let name: Notification.Name?
        /// The object filter, by identity; `nil` for every object (or one that is not a class).
        let object: ObjectIdentifier?
        /// A bridge participant: a bus post for the catalog message is due at the post's first sight.
        let bridge: Bool
    }

    private let participants = Locked<[UInt64: Participant]>([:])
    /// How many bridge participants observe each name: while there are some, the first sight of a
    /// post of that name delivers its catalog message on the bus (the bridge's job) as it records it.
    private let bridgedNames = Locked<[Notification.Name: Int]>([:])
    weak let bus: Bus?
    private let centerID: ObjectIdentifier

    private init(bus: Bus, center: NotificationCenter) {
        self.bus = bus
        self.centerID = ObjectIdentifier(center)
    }

    // MARK: One tracker per bus and center

    private struct Entry: @unchecked Sendable {
        // @unchecked: weak references, loaded atomically, only compared by identity.
        weak var bus: Bus?
        weak var center: NotificationCenter?
        let tracker: PostTracker
    }

    private static let all = Locked<[Entry]>([])

    /// The tracker of `bus` recording `center`, made on first use.
    static func shared(bus: Bus, center: NotificationCenter) -> PostTracker {
        all.withLock { entries in
            if let entry = entries.first(where: { $0.bus === bus && $0.center === center }) { return entry.tracker }
            entries.removeAll { $0.bus == nil || $0.center == nil }
            let tracker = PostTracker(bus: bus, center: center)
            entries.append(Entry(bus: bus, center: center, tracker: tracker))
            return tracker
        }
    }

    // MARK: Participants

    func join(_ id: UInt64, name: Notification.Name?, object: Any?, bridge: Bool = false) {
        let participant = Participant(name: name, object: Self.identity(object), bridge: bridge)
        participants.withLock { $0[id] = participant }
        if bridge, let name { bridgedNames.withLock { $0[name, default: 0] += 1 } }
    }

    func leave(_ id: UInt64) {
        guard let gone = participants.withLock({ $0.removeValue(forKey: id) }) else { return }
        if gone.bridge, let name = gone.name {
            bridgedNames.withLock { names in
                names[name] = names[name].flatMap { $0 > 1 ? $0 - 1 : nil }
            }
        }
    }

    /// Whether a post of `note` will reach a participant other than `participant`.
    func expectsOthers(than participant: UInt64, for note: Notification) -> Bool {
        let object = Self.identity(note.object)
        return participants.withLock { all in
            all.contains { id, other in
                id != participant && (other.name == nil || other.name == note.name)
                    && (other.object == nil || other.object == object)
            }
        }
    }

    /// Whether a bridge turns posts of `name` into bus posts.
    func isBridged(_ name: Notification.Name) -> Bool { bridgedNames.withLock { $0[name] != nil } }

    // MARK: Posts

    /// Runs `body` (the real center's post) as the post `post`, which this tracker's caller recorded.
    func own(_ note: Notification, post: UInt64, _ body: () -> Void) {
        let frame = Frame(tracker: ObjectIdentifier(self), name: note.name, object: Self.identity(note.object),
                          post: post, pending: nil)
        Frames.push(frame)
        defer { Frames.pop(frame) }
        body()
    }

    /// The post `participant` is being called for, recording it first when this is its first
    /// sight (`record` records it and returns its id).
    /// - Returns: The post, and whether this call recorded it.
    func post(of note: Notification, for participant: UInt64, record: () -> UInt64) -> (post: UInt64, first: Bool) {
        let object = Self.identity(note.object)
        if let post = Frames.claim(tracker: ObjectIdentifier(self), name: note.name, object: object, by: participant) {
            return (post, false)
        }
        let post = record()
        let others = participants.withLock { all in
            Set(all.compactMap { id, other -> UInt64? in
                guard id != participant, other.name == nil || other.name == note.name,
                      other.object == nil || other.object == object else { return nil }
                return id
            })
        }
        if !others.isEmpty {
            Frames.push(Frame(tracker: ObjectIdentifier(self), name: note.name, object: object, post: post,
                              pending: others))
        }
        return (post, true)
    }

    /// An object's identity when it is a class instance.
    static func identity(_ value: Any?) -> ObjectIdentifier? {
        guard let value, type(of: value) is AnyClass else { return nil }
        return ObjectIdentifier(value as AnyObject)
    }
}

/// A post open on this thread.
private final class Frame {
    let tracker: ObjectIdentifier
    let name: Notification.Name
    let object: ObjectIdentifier?
    let post: UInt64
    /// For a post seen from outside: the participants still to be called. `nil` for a post
    /// through the recording center, open until the real center returns.
    var pending: Set<UInt64>?
    /// The participants already called in this post.
    var called: Set<UInt64> = []

    init(tracker: ObjectIdentifier, name: Notification.Name, object: ObjectIdentifier?, post: UInt64,
         pending: Set<UInt64>?) {
        self.tracker = tracker
        self.name = name
        self.object = object
        self.post = post
        self.pending = pending
    }
}

/// The open posts of the current thread, innermost last.
private enum Frames {
    private final class Stack { var frames: [Frame] = [] }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key) { pointer in
            #if canImport(Darwin)
            Unmanaged<AnyObject>.fromOpaque(pointer).release()
            #else
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
            #endif
        } == 0, "pthread_key_create failed")
        return key
    }()

    private static var stack: Stack {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<AnyObject>.fromOpaque(pointer).takeUnretainedValue() as! Stack
        }
        let stack = Stack()
        pthread_setspecific(key, Unmanaged<AnyObject>.passRetained(stack).toOpaque())
        return stack
    }

    static func push(_ frame: Frame) {
        let stack = self.stack
        // A post from outside that some participant was never called for (an observer removed
        // during it, on a center that then skips it) is over once the thread is outside every
        // other: keep the stack from growing with such leftovers.
        if stack.frames.count > 64 { stack.frames.removeFirst(stack.frames.count - 64) }
        stack.frames.append(frame)
    }

    /// Closes a post through the recording center, and the posts from outside opened inside it.
    static func pop(_ frame: Frame) {
        let stack = self.stack
        if let index = stack.frames.lastIndex(where: { $0 === frame }) { stack.frames.removeSubrange(index...) }
    }

    /// The innermost open post of `name` and `object` that expects `participant`, marking it called.
    static func claim(tracker: ObjectIdentifier, name: Notification.Name, object: ObjectIdentifier?,
                      by participant: UInt64) -> UInt64? {
        let stack = self.stack
        for index in stack.frames.indices.reversed() {
            let frame = stack.frames[index]
            guard frame.tracker == tracker, frame.name == name, frame.object == object,
                  !frame.called.contains(participant) else { continue }
            if var pending = frame.pending {
                guard pending.remove(participant) != nil else { continue }
                frame.pending = pending
                if pending.isEmpty { stack.frames.remove(at: index) }
            }
            frame.called.insert(participant)
            return frame.post
        }
        return nil
    }
}
