import Synchronization

/// One registration on a bus. Immutable but for the `isActive` flag, which is
/// atomic: a post checks it just before calling the handler, so an observer
/// removed during a post is not called later in that post.
@usableFromInline
class Observer: @unchecked Sendable {
    // @unchecked: every stored property is a `let` of a Sendable type or an
    // atomic, except `slot` and `retainer`, which only the bus reads and writes,
    // under its lock; `weak let` references are read-only and safe to load from any thread.
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
    let ownerID: UInt64?
    weak let owner: AnyObject?
    let senderID: ObjectIdentifier?
    weak let sender: AnyObject?
    let kind: ObserverKind
    let capture: BlockCapture?
    /// Where its handler runs; anything but ``HandlerDispatch/postingThread`` is
    /// delivered through ``Bus/deliverElsewhere(_:to:post:)``.
    let dispatch: HandlerDispatch
    /// For a block that captures its owner strongly: what keeps the owner alive, until
    /// the block is removed. Guarded by the bus's lock.
    var retainer: OwnerRetainer?
    let isActive = Atomic<Bool>(true)

    init(id: UInt64, typeKey: ObjectIdentifier?, list: ObserverList, owner: ObjectRef?, ownerID: UInt64?,
         sender: ObjectRef?, kind: ObserverKind = .token, capture: BlockCapture? = nil,
         retainer: OwnerRetainer? = nil, dispatch: HandlerDispatch = .postingThread) {
        self.id = id
        self.dispatch = dispatch
        self.typeKey = typeKey
        self.list = list
        self.owner = owner?.object
        self.ownerID = ownerID
        self.sender = sender?.object
        self.senderID = sender.map { ObjectIdentifier($0.object) }
        self.kind = kind
        self.capture = capture
        self.retainer = retainer
    }

    init(_ fields: __owned ObserverFields, dispatch: HandlerDispatch) {
        id = fields.id
        self.dispatch = dispatch
        typeKey = fields.type
        list = fields.list
        owner = fields.owner?.object
        ownerID = fields.ownerID
        sender = fields.sender?.object
        senderID = fields.sender.map { ObjectIdentifier($0.object) }
        kind = fields.kind
        capture = fields.capture
        retainer = fields.retainer
    }

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

/// What the bus decides of a new observer under its lock: everything but its handler.
@usableFromInline
struct ObserverFields {
    let id: UInt64
    let type: ObjectIdentifier
    /// The list it is added to, which names its message.
    let list: ObserverList
    let owner: ObjectRef?
    let ownerID: UInt64?
    let sender: ObjectRef?
    let kind: ObserverKind
    let capture: BlockCapture?
    let retainer: OwnerRetainer?
}

/// An observer of one message type; the bus looks it up by that type, so the
/// downcast in ``Bus/post(_:sender:)`` cannot fail.
@usableFromInline
final class TypedObserver<M: BusMessage>: Observer, @unchecked Sendable {
    // @unchecked: adds only immutable Sendable closures to `Observer`.
    let handler: @Sendable (M) -> Void
    /// A selector observer's action, called with its target.
    let action: (@Sendable (AnyObject, M) -> Void)?
    /// The handler of a ``HandlerDispatch/mainActor`` observer.
    let mainActorHandler: (@MainActor @Sendable (M) -> Void)?
    /// The queue of an ``HandlerDispatch/async`` observer, drained in order by one task.
    /// A class reference, not the continuation itself: an optional of the resilient
    /// `AsyncStream.Continuation` made every observer's init look up generic metadata
    /// at run time (add + remove went from 290 to 920 ns).
    let mailbox: Mailbox<M>?

    /// A token observer with a posting-thread handler, as ``Bus/observe(_:sender:owner:file:line:_:)`` adds.
    @usableFromInline
    convenience init(_ fields: __owned ObserverFields, handler: @escaping @Sendable (M) -> Void) {
        self.init(fields, handler: handler, action: nil, mainActorHandler: nil, mailbox: nil)
    }

    /// An observer with the fields the bus decided under its lock.
    init(_ fields: __owned ObserverFields, handler: @escaping @Sendable (M) -> Void,
         action: (@Sendable (AnyObject, M) -> Void)?,
         mainActorHandler: (@MainActor @Sendable (M) -> Void)?, mailbox: Mailbox<M>?) {
        self.handler = handler
        self.action = action
        self.mainActorHandler = mainActorHandler
        self.mailbox = mailbox
        let dispatch: HandlerDispatch = mainActorHandler != nil ? .mainActor : mailbox != nil ? .async : .postingThread
        // Handed on whole to the base class's initializer, which is not generic: taken apart
        // here, each field was copied and destroyed through value witnesses.
        super.init(fields, dispatch: dispatch)
    }

    override func didRemove() {
        mailbox?.continuation.finish()
    }

    @inline(__always)
    func call(_ message: M, owner: AnyObject?) {
        if let action {
            // A selector observer is called only with its target alive: the caller checked.
            if let owner { action(owner, message) }
        } else {
            handler(message)
        }
    }
}

/// An observer of every message.
final class WildcardObserver: Observer, @unchecked Sendable {
    // @unchecked: adds only an immutable Sendable closure to `Observer`.
    let handler: @Sendable (any BusMessage) -> Void

    init(id: UInt64, list: ObserverList, owner: ObjectRef?, ownerID: UInt64?,
         handler: @escaping @Sendable (any BusMessage) -> Void) {
        self.handler = handler
        super.init(id: id, typeKey: nil, list: list, owner: owner, ownerID: ownerID, sender: nil)
    }
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
final class Mailbox<M: BusMessage>: Sendable {
    let continuation: AsyncStream<Queued<M>>.Continuation
    init(_ continuation: AsyncStream<Queued<M>>.Continuation) { self.continuation = continuation }
}
