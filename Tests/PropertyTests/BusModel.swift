import Foundation
import NotifyBus

// A reference model of the bus: what a single-threaded sequence of operations must
// deliver and record, written from the documented rules (Bus's DocC, NOTIFICATIONCENTER.md)
// without looking at how the bus stores anything. The property tests run the same
// operations on a real bus and compare deliveries and trace events one for one.

struct Ping: BusMessage { var n: Int }
struct Pong: BusMessage { var n: Int }

/// The two message types the operations use.
enum Message: Int, CaseIterable, Sendable, CustomStringConvertible {
    case ping, pong

    var name: String {
        switch self {
        case .ping: Ping.name
        case .pong: Pong.name
        }
    }

    var description: String { name }
}

/// The owners a sequence uses, made before it starts; the sequence may let go of them.
let ownerCount = 4

/// An object that owns observers, and may clean up in its `deinit`.
final class ModelOwner: TraceLabeled, Sendable {
    let traceLabel: String
    let onDeinit = DeinitHook()
    init(_ prefix: String = "", _ index: Int) { traceLabel = "\(prefix)owner\(index)" }
    deinit { onDeinit.run(self) }
}

/// What an owner does in its `deinit`: set by the test before it lets go of the owner.
final class DeinitHook: @unchecked Sendable {
    // @unchecked: `action` is set by the thread that owns the owner, before it lets go of
    // it, and read by the deinit, which runs after (on that thread, or on the thread
    // whose removal of a `strong` block released the owner, after that removal).
    private var action: (@Sendable (AnyObject) -> Void)?
    func set(_ action: @escaping @Sendable (AnyObject) -> Void) { self.action = action }
    func run(_ owner: AnyObject) { action?(owner) }
}

/// What an owner's `deinit` removes, as real code does there (NOTIFICATIONCENTER.md).
enum Cleanup: Int, CaseIterable, Sendable, CustomStringConvertible {
    case nothing
    /// `removeObserver(self)`: its selector observers.
    case removeObserverSelf
    /// `removeAll(owner: self)`: every observer it owns.
    case removeAll
    /// `remove(Ping.self, owner: self)`: its observers of one message.
    case removePing

    var description: String {
        switch self {
        case .nothing: "nothing"
        case .removeObserverSelf: "removeObserver(self)"
        case .removeAll: "removeAll(owner: self)"
        case .removePing: "remove(Ping, owner: self)"
        }
    }
}

/// One step of a sequence. Indices into lists (tokens, blocks) are taken modulo the
/// list's length when the step runs, so that every step applies to something.
enum BusOp: Sendable, Equatable, CustomStringConvertible {
    /// A token observer (`observe(_:owner:)`), of one message or (`nil`) of every message.
    case observe(owner: Int?, message: Message?)
    case block(owner: Int, message: Message, capture: BlockCapture)
    case selector(owner: Int, message: Message)
    /// `remove(token)`.
    case removeToken(Int)
    /// The test drops its copy of the token.
    case releaseToken(Int)
    /// `removeObserver(observation)`.
    case removeBlock(Int)
    /// `removeObserver(target)`, or `removeObserver(target, name:)`.
    case removeSelectors(owner: Int, message: Message?)
    /// `removeAll(owner:)`.
    case removeAll(owner: Int)
    /// `remove(M.self, owner:)`.
    case removeMessage(owner: Int, message: Message)
    case post(Message, sender: Int?)
    /// The test drops its reference to the owner, which cleans up in its deinit.
    case releaseOwner(Int, cleanup: Cleanup)
    /// `sweepReleasedOwners()`.
    case sweep

    /// Decodes a step from a generated number: every number is a valid step, so
    /// shrinking the numbers shrinks the sequence.
    init(code: Int) {
        var rest = code
        func take(_ count: Int) -> Int {
            defer { rest /= count }
            return rest % count
        }
        let message = Message(rawValue: take(2))!
        switch take(16) {
        case 0, 1: self = .observe(owner: take(5) == 4 ? nil : take(ownerCount), message: take(5) == 0 ? nil : message)
        case 2, 3: self = .block(owner: take(ownerCount), message: message, capture: BlockCapture.allCases[take(3)])
        case 4: self = .selector(owner: take(ownerCount), message: message)
        case 5: self = .removeToken(take(64))
        case 6: self = .releaseToken(take(64))
        case 7: self = .removeBlock(take(64))
        case 8: self = .removeSelectors(owner: take(ownerCount), message: take(2) == 0 ? nil : message)
        case 9: self = .removeAll(owner: take(ownerCount))
        case 10: self = .removeMessage(owner: take(ownerCount), message: message)
        case 11, 12, 13: self = .post(message, sender: take(3) == 0 ? take(ownerCount) : nil)
        case 14: self = .releaseOwner(take(ownerCount), cleanup: Cleanup(rawValue: take(4))!)
        default: self = .sweep
        }
    }

    var description: String {
        switch self {
        case .observe(let owner, let message): "observe(\(message?.name ?? "*"), owner: \(owner.map(String.init) ?? "-"))"
        case .block(let owner, let message, let capture): "block(\(message), owner: \(owner), \(capture))"
        case .selector(let owner, let message): "selector(\(message), owner: \(owner))"
        case .removeToken(let index): "removeToken(\(index))"
        case .releaseToken(let index): "releaseToken(\(index))"
        case .removeBlock(let index): "removeBlock(\(index))"
        case .removeSelectors(let owner, let message): "removeSelectors(owner: \(owner), \(message?.name ?? "all"))"
        case .removeAll(let owner): "removeAll(owner: \(owner))"
        case .removeMessage(let owner, let message): "remove(\(message), owner: \(owner))"
        case .post(let message, let sender): "post(\(message), sender: \(sender.map(String.init) ?? "-"))"
        case .releaseOwner(let owner, let cleanup): "releaseOwner(\(owner), deinit: \(cleanup))"
        case .sweep: "sweep"
        }
    }
}

/// A trace event with the message's name in place of its payload, comparable.
enum ModelEvent: Equatable, CustomStringConvertible {
    case registered(owner: UInt64, type: String, label: String)
    case added(observer: UInt64, message: String?, owner: UInt64?, sender: UInt64?, callSite: CallSite,
               kind: ObserverKind, capture: BlockCapture?, handler: String?)
    case removed(observer: UInt64?, message: String?, owner: UInt64?, reason: RemovalReason, callSite: CallSite?)
    case released(owner: UInt64, retainedBy: UInt64?)
    case trapped(post: UInt64, observer: UInt64, reason: TrapReason)
    case posted(post: UInt64, message: String, sender: UInt64?, parent: UInt64?, origin: PostOrigin)
    case delivered(post: UInt64, observer: UInt64)
    case skipped(post: UInt64, observer: UInt64)
    /// An event no bus operation of these tests records.
    case unexpected(String)

    init(_ kind: TraceEvent.Kind) {
        switch kind {
        case .ownerRegistered(let owner, let type, let label): self = .registered(owner: owner, type: type, label: label)
        case .observerAdded(let observer, let message, let owner, let sender, let callSite, let kind, let capture, let handler):
            self = .added(observer: observer, message: message, owner: owner, sender: sender, callSite: callSite,
                          kind: kind, capture: capture, handler: handler)
        case .observerRemoved(let observer, let message, let owner, let reason, let callSite):
            self = .removed(observer: observer, message: message, owner: owner, reason: reason, callSite: callSite)
        case .ownerReleased(let owner, let retainedBy): self = .released(owner: owner, retainedBy: retainedBy)
        case .trapped(let post, let observer, let reason): self = .trapped(post: post, observer: observer, reason: reason)
        case .posted(let post, let message, let sender, let parent, let origin):
            self = .posted(post: post, message: message.messageName, sender: sender, parent: parent, origin: origin)
        case .delivered(let post, let observer): self = .delivered(post: post, observer: observer)
        case .skipped(let post, let observer): self = .skipped(post: post, observer: observer)
        case .ownerAttached, .lifecycle, .actionRouted, .bridgeRejected, .enqueued: self = .unexpected("\(kind)")
        }
    }

    var description: String {
        switch self {
        case .registered(let owner, _, let label): "registered \(owner) \(label)"
        case .added(let observer, let message, let owner, _, let callSite, let kind, let capture, _):
            "added \(observer) \(message ?? "*") owner:\(owner.map(String.init) ?? "-") \(kind)\(capture.map { " \($0)" } ?? "") at \(callSite)"
        case .removed(let observer, let message, let owner, let reason, let callSite):
            "removed \(observer.map(String.init) ?? "-") \(message ?? "*") owner:\(owner.map(String.init) ?? "-") \(reason) at \(callSite.map(String.init(describing:)) ?? "-")"
        case .released(let owner, let retainedBy): "released \(owner)\(retainedBy.map { " kept by \($0)" } ?? "")"
        case .trapped(let post, let observer, let reason): "trapped \(post)->\(observer) \(reason)"
        case .posted(let post, let message, let sender, _, let origin): "posted \(post) \(message) sender:\(sender.map(String.init) ?? "-") \(origin)"
        case .delivered(let post, let observer): "delivered \(post)->\(observer)"
        case .skipped(let post, let observer): "skipped \(post)->\(observer)"
        case .unexpected(let text): "unexpected \(text)"
        }
    }
}

/// A handler call: which observer (by the step that added it) got which post (by the step that posted it).
struct Delivery: Hashable, Sendable, CustomStringConvertible {
    var observer: Int
    var post: Int
    var description: String { "step \(observer) got step \(post)" }
}

/// The model: what the bus must record and deliver for a sequence of steps.
struct BusModel {
    struct Observer {
        var id: UInt64
        /// The step that added it: its handler logs this.
        var step: Int
        var kind: ObserverKind
        var capture: BlockCapture?
        var owner: Int?
        /// `nil` for an observer of every message.
        var message: Message?
        /// The bus it was added on.
        var bus: Int
        var active = true
    }

    struct Owner {
        /// Its id in the trace, once the bus has seen it.
        var id: UInt64?
        var heldByTest = true
        var reportedGone = false
        /// The buses whose sweep reported it kept alive by their `strong` blocks alone.
        var reportedRetained: Set<Int> = []
        var cleanup = Cleanup.nothing
        var deinitialized = false
    }

    let semantics: SelectorSemantics
    /// The buses recording into the one sink: ids, owners and `seq` are the session's.
    let buses: Int
    private(set) var events: [ModelEvent] = []
    private(set) var deliveries: [Delivery] = []
    private(set) var observers: [Observer] = []
    private var owners = Array(repeating: Owner(), count: ownerCount)
    /// Observers by list position, as the test holds their tokens and observations.
    private(set) var tokens: [UInt64] = []
    private(set) var blocks: [UInt64] = []
    private var nextOwnerID: UInt64 = 1
    private var postCounter: UInt64 = 0

    init(semantics: SelectorSemantics, buses: Int = 1) {
        self.semantics = semantics
        self.buses = buses
    }

    var activeCount: Int { observers.filter(\.active).count }

    func isHeld(_ owner: Int) -> Bool { owners[owner].heldByTest }

    /// Whether the owner object still exists: held by the test, or by a `strong` block.
    private func isAlive(_ owner: Int) -> Bool {
        owners[owner].heldByTest || observers.contains { $0.active && $0.owner == owner && $0.capture == .strong }
    }

    private mutating func register(_ owner: Int) -> UInt64 {
        if let id = owners[owner].id { return id }
        let id = nextOwnerID
        nextOwnerID += 1
        owners[owner].id = id
        events.append(.registered(owner: id, type: String(describing: ModelOwner.self), label: "owner\(owner)"))
        return id
    }

    private mutating func add(step: Int, kind: ObserverKind, capture: BlockCapture?, owner: Int?, message: Message?,
                              bus: Int) -> UInt64 {
        let id = UInt64(observers.count + 1)
        let ownerID = owner.map { register($0) }
        observers.append(Observer(id: id, step: step, kind: kind, capture: capture, owner: owner, message: message, bus: bus))
        events.append(.added(observer: id, message: message?.name, owner: ownerID, sender: nil,
                             callSite: CallSite(file: "step", line: step), kind: kind, capture: capture,
                             handler: kind == .selector ? "handle\(message!.name):" : nil))
        return id
    }

    private mutating func remove(_ id: UInt64, reason: RemovalReason, callSite: CallSite?, reportMissing: Bool) {
        let index = Int(id - 1)
        let observer = observers[index]
        guard observer.active || reportMissing else { return }
        observers[index].active = false
        events.append(.removed(observer: id, message: observer.message?.name, owner: observer.owner.flatMap { owners[$0].id },
                               reason: reason, callSite: callSite))
        // A `strong` block was the last thing keeping its owner: the owner's deinit runs now.
        if observer.capture == .strong, let owner = observer.owner { deinitializeIfFree(owner) }
    }

    /// Runs `owner`'s deinit, and its cleanup on every bus in order, once nothing keeps it.
    private mutating func deinitializeIfFree(_ owner: Int) {
        guard !isAlive(owner), !owners[owner].deinitialized else { return }
        owners[owner].deinitialized = true
        let callSite = CallSite(file: "deinit", line: owner)
        for bus in 0..<buses {
            switch owners[owner].cleanup {
            case .nothing: break
            case .removeObserverSelf: removeSelectors(owner: owner, message: nil, bus: bus, callSite: callSite)
            case .removeAll: removeAll(owner: owner, bus: bus, callSite: callSite)
            case .removePing: removeMessage(owner: owner, message: .ping, bus: bus, callSite: callSite)
            }
        }
    }

    private mutating func removeSelectors(owner: Int, message: Message?, bus: Int, callSite: CallSite) {
        let ownerID = register(owner)
        let reason: RemovalReason = message == nil ? .ownerSelectors : .explicit
        let matching = observers.filter {
            $0.active && $0.bus == bus && $0.owner == owner && $0.kind == .selector && (message == nil || $0.message == message)
        }
        if matching.isEmpty {
            events.append(.removed(observer: nil, message: message?.name, owner: ownerID, reason: reason, callSite: callSite))
        }
        for observer in matching { remove(observer.id, reason: reason, callSite: callSite, reportMissing: false) }
    }

    private mutating func removeAll(owner: Int, bus: Int, callSite: CallSite) {
        guard owners[owner].id != nil else { return }  // never seen: nothing to remove, nothing recorded
        for observer in observers where observer.active && observer.bus == bus && observer.owner == owner {
            remove(observer.id, reason: .ownerRemoved, callSite: callSite, reportMissing: false)
        }
    }

    private mutating func removeMessage(owner: Int, message: Message, bus: Int, callSite: CallSite) {
        let ownerID = register(owner)
        let matching = observers.filter { $0.active && $0.bus == bus && $0.owner == owner && $0.message == message }
        if matching.isEmpty {
            events.append(.removed(observer: nil, message: message.name, owner: ownerID, reason: .explicit, callSite: callSite))
        }
        for observer in matching { remove(observer.id, reason: .explicit, callSite: callSite, reportMissing: false) }
    }

    /// Applies a step on bus `bus` (tokens and block observations go to the bus that made
    /// them); returns `false` when it does not apply (an owner the test let go of, a token
    /// when there is none), in which case the test skips it too.
    mutating func apply(_ op: BusOp, step: Int, bus: Int = 0) -> Bool {
        let callSite = CallSite(file: "step", line: step)
        switch op {
        case .observe(let owner, let message):
            if let owner, !isHeld(owner) { return false }
            tokens.append(add(step: step, kind: .token, capture: nil, owner: owner, message: message, bus: bus))
        case .block(let owner, let message, let capture):
            guard isHeld(owner) else { return false }
            blocks.append(add(step: step, kind: .block, capture: capture, owner: owner, message: message, bus: bus))
        case .selector(let owner, let message):
            guard isHeld(owner) else { return false }
            _ = add(step: step, kind: .selector, capture: nil, owner: owner, message: message, bus: bus)
        case .removeToken(let index):
            guard !tokens.isEmpty else { return false }
            remove(tokens[index % tokens.count], reason: .explicit, callSite: callSite, reportMissing: true)
        case .releaseToken(let index):
            guard !tokens.isEmpty else { return false }
            let id = tokens.remove(at: index % tokens.count)
            remove(id, reason: .tokenReleased, callSite: nil, reportMissing: false)
        case .removeBlock(let index):
            guard !blocks.isEmpty else { return false }
            remove(blocks[index % blocks.count], reason: .explicit, callSite: callSite, reportMissing: true)
        case .removeSelectors(let owner, let message):
            guard isHeld(owner) else { return false }
            removeSelectors(owner: owner, message: message, bus: bus, callSite: callSite)
        case .removeAll(let owner):
            guard isHeld(owner) else { return false }
            removeAll(owner: owner, bus: bus, callSite: callSite)
        case .removeMessage(let owner, let message):
            guard isHeld(owner) else { return false }
            removeMessage(owner: owner, message: message, bus: bus, callSite: callSite)
        case .post(let message, let sender):
            if let sender, !isHeld(sender) { return false }
            post(message, sender: sender, step: step, bus: bus)
        case .releaseOwner(let owner, let cleanup):
            guard isHeld(owner) else { return false }
            owners[owner].heldByTest = false
            owners[owner].cleanup = cleanup
            deinitializeIfFree(owner)
        case .sweep:
            sweep(bus: bus)
        }
        return true
    }

    private mutating func post(_ message: Message, sender: Int?, step: Int, bus: Int) {
        let senderID = sender.map { register($0) }
        postCounter += 1
        let post = postCounter
        events.append(.posted(post: post, message: message.name, sender: senderID, parent: nil, origin: .app))
        let snapshot = observers.filter { $0.active && $0.bus == bus && ($0.message == nil || $0.message == message) }
        for observer in snapshot {
            guard let owner = observer.owner, !isAlive(owner) else {
                events.append(.delivered(post: post, observer: observer.id))
                deliveries.append(Delivery(observer: observer.step, post: step))
                continue
            }
            let ownerID = owners[owner].id!
            if !owners[owner].reportedGone {
                owners[owner].reportedGone = true
                events.append(.released(owner: ownerID, retainedBy: nil))
            }
            switch (observer.kind, observer.capture) {
            case (.block, .unowned?):
                events.append(.trapped(post: post, observer: observer.id, reason: .unownedCapture))
            case (.block, _):
                events.append(.delivered(post: post, observer: observer.id))
                deliveries.append(Delivery(observer: observer.step, post: step))
            case (.selector, _) where semantics == .legacy:
                events.append(.trapped(post: post, observer: observer.id, reason: .deallocatedTarget))
            case (.selector, _), (.token, _):
                events.append(.skipped(post: post, observer: observer.id))
                remove(observer.id, reason: .ownerGone, callSite: nil, reportMissing: false)
            }
        }
    }

    private mutating func sweep(bus: Int) {
        let seen = owners.indices.filter { owners[$0].id != nil }.sorted { owners[$0].id! < owners[$1].id! }
        for owner in seen where !owners[owner].heldByTest && !owners[owner].reportedRetained.contains(bus) {
            // Kept alive by this bus's `strong` blocks alone: another bus's would hold it too.
            let strong = observers.filter { $0.active && $0.owner == owner && $0.capture == .strong }
            guard let holder = strong.first, strong.allSatisfy({ $0.bus == bus }) else { continue }
            owners[owner].reportedRetained.insert(bus)
            events.append(.released(owner: owners[owner].id!, retainedBy: holder.id))
        }
        for owner in seen where !isAlive(owner) && !owners[owner].reportedGone {
            owners[owner].reportedGone = true
            events.append(.released(owner: owners[owner].id!, retainedBy: nil))
        }
    }
}

/// The handler calls of a run, from any thread. An `NSLock`, not `Synchronization.Mutex`:
/// ThreadSanitizer cannot see Mutex's futex on Linux and would report every append.
final class DeliveryLog: @unchecked Sendable {
    // @unchecked: `items` is read and written only under `lock`.
    private let lock = NSLock()
    private var items: [Delivery] = []

    func append(_ delivery: Delivery) {
        lock.lock()
        defer { lock.unlock() }
        items.append(delivery)
    }

    var all: [Delivery] {
        lock.lock()
        defer { lock.unlock() }
        return items
    }
}
