import Synchronization

/// One registration on a bus. Immutable but for the `isActive` flag, which is
/// atomic: a post checks it just before calling the handler, so an observer
/// removed during a post is not called later in that post.
class Observer: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable type or an
    // atomic, except `slot`, which only the bus reads and writes, under its lock;
    // `weak let` references are read-only and safe to load from any thread.
    let id: UInt64
    /// The message type it observes; `nil` for a wildcard.
    let typeKey: ObjectIdentifier?
    /// Its index in `slots`. Guarded by the bus's lock.
    @exclusivity(unchecked) var slot = -1
    /// The bus's list it lives in, so that removing it needs no lookup. Guarded by
    /// the bus's lock. Unowned: the bus keeps every list for its life, and only a
    /// live bus removes observers (a token whose bus is gone does nothing).
    @exclusivity(unchecked) unowned(unsafe) var slots: Bus.Slots?
    let ownerID: UInt64?
    weak let owner: AnyObject?
    let senderID: ObjectIdentifier?
    weak let sender: AnyObject?
    let messageName: String?
    let callSite: CallSite
    let isActive = Atomic<Bool>(true)

    init(id: UInt64, typeKey: ObjectIdentifier?, owner: ObjectRef?, ownerID: UInt64?, sender: ObjectRef?,
         messageName: String?, callSite: CallSite) {
        self.id = id
        self.typeKey = typeKey
        self.owner = owner?.object
        self.ownerID = ownerID
        self.sender = sender?.object
        self.senderID = sender.map { ObjectIdentifier($0.object) }
        self.messageName = messageName
        self.callSite = callSite
    }

    /// Whether a post from `sender` reaches this observer.
    @inline(__always)
    final func accepts(sender postSender: AnyObject?) -> Bool {
        guard let senderID else { return true }
        guard let postSender, ObjectIdentifier(postSender) == senderID else { return false }
        // The identifier alone could match a new object at a freed address.
        return sender != nil
    }
}

/// An observer of one message type; the bus looks it up by that type, so the
/// downcast in ``Bus/post(_:sender:)`` cannot fail.
final class TypedObserver<M: BusMessage>: Observer, @unchecked Sendable {
    // @unchecked: adds only an immutable Sendable closure to `Observer`.
    let handler: @Sendable (M) -> Void

    init(id: UInt64, name: String, owner: ObjectRef?, ownerID: UInt64?, sender: ObjectRef?, callSite: CallSite,
         handler: @escaping @Sendable (M) -> Void) {
        self.handler = handler
        super.init(id: id, typeKey: ObjectIdentifier(M.self), owner: owner, ownerID: ownerID, sender: sender,
                   messageName: name, callSite: callSite)
    }
}

/// An observer of every message.
final class WildcardObserver: Observer, @unchecked Sendable {
    // @unchecked: adds only an immutable Sendable closure to `Observer`.
    let handler: @Sendable (any BusMessage) -> Void

    init(id: UInt64, owner: ObjectRef?, ownerID: UInt64?, callSite: CallSite,
         handler: @escaping @Sendable (any BusMessage) -> Void) {
        self.handler = handler
        super.init(id: id, typeKey: nil, owner: owner, ownerID: ownerID, sender: nil, messageName: nil, callSite: callSite)
    }
}

/// A strong reference to an arbitrary object, to carry it into a lock.
struct ObjectRef: @unchecked Sendable {
    // @unchecked: the bus only compares the object's identity, loads weak
    // references to it and reads its type and label; it never mutates it.
    let object: AnyObject
}

/// A weak reference to an arbitrary object.
struct WeakObject: @unchecked Sendable {
    // @unchecked: as for `ObjectRef`; loading a weak reference is atomic.
    weak var object: AnyObject?
}
