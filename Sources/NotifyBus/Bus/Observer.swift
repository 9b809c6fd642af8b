import Synchronization

/// One registration on a bus. Immutable but for the `isActive` flag, which is
/// atomic: a post checks it just before calling the handler, so an observer
/// removed during a post is not called later in that post.
///
/// The weak references to an owner and a sender are in the subclasses that have them
/// (``TiedObserver``, ``WildcardObserver``): a token observer with neither, the common
/// case, makes and destroys no weak reference (`BENCHMARKS.md`, "Add + remove").
@usableFromInline
class Observer: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable type or an
    // atomic, except `slot`, which only the bus reads and writes, under its lock.
    let id: UInt64
    /// The message type it observes (``NamedMessage`` for a named one); `nil` for a wildcard.
    let typeKey: ObjectIdentifier?
    /// Its index in `list` while registered. Guarded by the bus's lock. (No `@exclusivity(unchecked)`:
    /// the benchmarks run the same instructions without it, `BENCHMARKS.md`, "Fourth session".)
    var slot = -1
    /// The bus's list it is registered in (while `isActive`), so that removing it needs no
    /// lookup; it also names the message. The list outlives the registration: a bus keeps
    /// its lists for its life.
    let list: ObserverList
    /// The owner's id in the session; `nil` when it has no owner.
    let ownerID: UInt64?
    /// The identity of the only sender it hears; `nil` when it hears every sender.
    let senderID: ObjectIdentifier?
    let kind: ObserverKind
    let capture: BlockCapture?
    /// Where its handler runs; anything but ``HandlerDispatch/postingThread`` is
    /// delivered through ``Bus/deliverElsewhere(_:to:post:)``.
    let dispatch: HandlerDispatch
    let isActive = Atomic<Bool>(true)

    /// An observer with the fields the bus decided under its lock, given one by one and
    /// owned: handed over in one struct, each was copied out of it and the struct destroyed
    /// after, ~250 instructions per add.
    init(id: UInt64, typeKey: ObjectIdentifier?, list: __owned ObserverList, ownerID: UInt64?,
         senderID: ObjectIdentifier?, kind: ObserverKind, capture: BlockCapture?, dispatch: HandlerDispatch) {
        self.id = id
        self.typeKey = typeKey
        self.list = list
        self.ownerID = ownerID
        self.senderID = senderID
        self.kind = kind
        self.capture = capture
        self.dispatch = dispatch
    }

    /// The owner, `nil` when it has none or it is gone. Read only when `ownerID` is set.
    var owner: AnyObject? { nil }
    /// The sender it hears, `nil` when it hears every sender or the sender is gone.
    var sender: AnyObject? { nil }
    /// For a block that captures its owner strongly: what keeps the owner alive, until
    /// the block is removed. Guarded by the bus's lock.
    var retainer: OwnerRetainer? { nil }
    /// Gives up the retainer, when the observer is removed. Under the bus's lock.
    func takeRetainer() -> OwnerRetainer? { nil }

    /// The message it observes, as recorded; `nil` for a wildcard.
    final var messageName: String? { typeKey == nil ? nil : list.name }

    /// Called under the bus's lock once the observer is unregistered: an `async`
    /// observer ends its queue, so that its task stops after what is already queued.
    func didRemove() {}

    /// Whether a post from `sender` reaches this observer.
    @inline(__always)
    final func accepts(sender postSender: AnyObject?) -> Bool {
        guard let senderID else { return true }
        guard let postSender, ObjectIdentifier(postSender) == senderID else { return false }
        // The identifier alone could match a new object at a freed address.
        return sender != nil
    }
}

/// What the bus decides under its lock for an observer with an owner, a sender or a
/// kind other than token; a token observer with neither has none.
@usableFromInline
struct ObserverTies {
    let owner: ObjectRef?
    let ownerID: UInt64?
    let sender: ObjectRef?
    let senderID: ObjectIdentifier?
    let kind: ObserverKind
    let capture: BlockCapture?
    let retainer: OwnerRetainer?
}

/// An observer of one message type; the bus looks it up by that type, so the
/// downcast in ``Bus/post(_:sender:)`` cannot fail.
@usableFromInline
class TypedObserver<M: BusMessage>: Observer, @unchecked Sendable {
    // @unchecked: adds only immutable Sendable closures and a Sendable mailbox to `Observer`.

    /// What runs elsewhere than on the posting thread.
    @usableFromInline
    enum Elsewhere {
        /// The handler of a ``HandlerDispatch/mainActor`` observer.
        case mainActor(@MainActor @Sendable (M) -> Void)
        /// The queue of an ``HandlerDispatch/async`` observer, drained in order by one task.
        /// A class reference, not the continuation itself: the resilient
        /// `AsyncStream.Continuation` in an observer made every observer's init look up
        /// generic metadata at run time (add + remove went from 290 to 920 ns).
        case async(Mailbox<M>)
    }

    /// The posting-thread handler; does nothing for the other kinds. (Not in one enum
    /// with the others: read out of an enum, a post copied it, a retain and a release
    /// at every delivery.)
    let handler: @Sendable (M) -> Void
    /// A selector observer's action, called with its target.
    let action: (@Sendable (AnyObject, M) -> Void)?
    /// The handler of an observer that runs on the main actor or in a task of its own.
    let elsewhere: Elsewhere?

    /// A token observer of `M` with a posting-thread handler: a ``TiedObserver`` when
    /// it has `ties`.
    @usableFromInline @inline(__always)
    static func make(id: UInt64, list: __owned ObserverList, ties: __owned ObserverTies?,
                     handler: @escaping @Sendable (M) -> Void) -> Observer {
        guard let ties else { return TypedObserver<M>(id: id, list: list, handler: handler) }
        return TiedObserver<M>(id: id, list: list, ties: ties, handler: handler, action: nil, elsewhere: nil)
    }

    /// An observer of `M` with the fields the bus decided under its lock: a
    /// ``TiedObserver`` when it has `ties`.
    @inline(__always)
    static func make(id: UInt64, list: __owned ObserverList, ties: __owned ObserverTies?,
                     handler: @escaping @Sendable (M) -> Void, action: (@Sendable (AnyObject, M) -> Void)?,
                     elsewhere: __owned Elsewhere?) -> Observer {
        guard let ties else {
            return TypedObserver<M>(id: id, list: list, ownerID: nil, senderID: nil, kind: .token, capture: nil,
                                    handler: handler, action: action, elsewhere: elsewhere)
        }
        return TiedObserver<M>(id: id, list: list, ties: ties, handler: handler, action: action, elsewhere: elsewhere)
    }

    /// A token observer with a posting-thread handler and neither owner nor sender.
    @usableFromInline
    init(id: UInt64, list: __owned ObserverList, handler: @escaping @Sendable (M) -> Void) {
        self.handler = handler
        action = nil
        elsewhere = nil
        super.init(id: id, typeKey: ObjectIdentifier(M.self), list: list, ownerID: nil, senderID: nil, kind: .token,
                   capture: nil, dispatch: .postingThread)
    }

    /// An observer with every field but the weak references, which are ``TiedObserver``'s.
    /// (Trivial values only: handing the ties' strong references on copied them, and an
    /// owner that has weak references takes the runtime's slow path for each retain.)
    init(id: UInt64, list: __owned ObserverList, ownerID: UInt64?, senderID: ObjectIdentifier?, kind: ObserverKind,
         capture: BlockCapture?, handler: @escaping @Sendable (M) -> Void, action: (@Sendable (AnyObject, M) -> Void)?,
         elsewhere: __owned Elsewhere?) {
        let dispatch: HandlerDispatch = switch elsewhere {
        case nil: .postingThread
        case .mainActor?: .mainActor
        case .async?: .async
        }
        self.handler = handler
        self.action = action
        self.elsewhere = elsewhere
        super.init(id: id, typeKey: ObjectIdentifier(M.self), list: list, ownerID: ownerID, senderID: senderID,
                   kind: kind, capture: capture, dispatch: dispatch)
    }

    /// The handler of a ``HandlerDispatch/mainActor`` observer.
    final var mainActorHandler: (@MainActor @Sendable (M) -> Void)? {
        if case .mainActor(let handler)? = elsewhere { return handler }
        return nil
    }

    /// The queue of an ``HandlerDispatch/async`` observer.
    final var mailbox: Mailbox<M>? {
        if case .async(let mailbox)? = elsewhere { return mailbox }
        return nil
    }

    override final func didRemove() {
        mailbox?.continuation.finish()
    }

    @inline(__always)
    final func call(_ message: M, owner: AnyObject?) {
        if let action {
            // A selector observer is called only with its target alive: the caller checked.
            if let owner { action(owner, message) }
        } else {
            handler(message)
        }
    }
}

/// An observer of one message type with an owner or a sender, held weakly.
@usableFromInline
final class TiedObserver<M: BusMessage>: TypedObserver<M>, @unchecked Sendable {
    // @unchecked: adds weak references, read-only and safe to load from any thread, and
    // `heldRetainer`, which only the bus reads and writes, under its lock.
    weak let ownerObject: AnyObject?
    weak let senderObject: AnyObject?
    var heldRetainer: OwnerRetainer?

    @usableFromInline
    init(id: UInt64, list: __owned ObserverList, ties: __owned ObserverTies, handler: @escaping @Sendable (M) -> Void,
         action: (@Sendable (AnyObject, M) -> Void)?, elsewhere: __owned Elsewhere?) {
        ownerObject = ties.owner?.object
        senderObject = ties.sender?.object
        heldRetainer = ties.retainer
        super.init(id: id, list: list, ownerID: ties.ownerID, senderID: ties.senderID, kind: ties.kind,
                   capture: ties.capture, handler: handler, action: action, elsewhere: elsewhere)
    }

    override var owner: AnyObject? { ownerObject }
    override var sender: AnyObject? { senderObject }
    override var retainer: OwnerRetainer? { heldRetainer }

    override func takeRetainer() -> OwnerRetainer? {
        defer { heldRetainer = nil }
        return heldRetainer
    }
}

/// An observer of every message.
final class WildcardObserver: Observer, @unchecked Sendable {
    // @unchecked: adds only an immutable Sendable closure and a weak reference to `Observer`.
    let handler: @Sendable (any BusMessage) -> Void
    weak let ownerObject: AnyObject?

    init(id: UInt64, list: ObserverList, owner: ObjectRef?, ownerID: UInt64?,
         handler: @escaping @Sendable (any BusMessage) -> Void) {
        self.handler = handler
        ownerObject = owner?.object
        super.init(id: id, typeKey: nil, list: list, ownerID: ownerID, senderID: nil, kind: .token, capture: nil,
                   dispatch: .postingThread)
    }

    override var owner: AnyObject? { ownerObject }
}

/// Holds an owner strongly for the block observers that capture it `strong`,
/// one per owner, so that the bus can tell when nothing else holds it.
class OwnerRetainer: @unchecked Sendable {
    // @unchecked: `count` is guarded by the bus's lock; the subclass's object is
    // only compared and checked for uniqueness under that lock. (Exclusivity checked at run
    // time: one access per `strong` block added or removed, which no benchmark measures.)
    var count = 0
    /// Whether this retainer holds the only strong reference to the owner.
    func holdsLastReference() -> Bool { false }
}

final class TypedOwnerRetainer<Owner: AnyObject>: OwnerRetainer, @unchecked Sendable {
    // @unchecked: as for `OwnerRetainer`.
    private var object: Owner

    init(_ object: Owner) { self.object = object }

    override func holdsLastReference() -> Bool { isKnownUniquelyReferenced(&object) }
}

/// Where an observer's handler runs.
@usableFromInline
enum HandlerDispatch: UInt8, Sendable {
    /// Synchronously on the posting thread.
    case postingThread
    /// On the main actor: synchronously when posted there, queued otherwise.
    case mainActor
    /// In a task of its own, one message after another.
    case async
}

/// A message queued for an observer, with the post it came from.
struct Queued<M: BusMessage>: Sendable {
    let message: M
    let post: UInt64
}

/// The queue of an `async` observer.
@usableFromInline
final class Mailbox<M: BusMessage>: Sendable {
    let continuation: AsyncStream<Queued<M>>.Continuation
    init(_ continuation: AsyncStream<Queued<M>>.Continuation) { self.continuation = continuation }
}
