import Synchronization

/// A handle on one observer of a ``Bus``: the typed-token kind, like SF-0011's
/// `ObservationToken`.
///
/// The observer stays registered while any copy of its token exists; when the
/// last copy is released the observer is removed (recorded with reason
/// ``RemovalReason/tokenReleased``). ``Bus/remove(_:file:line:)`` removes it earlier;
/// removing twice is harmless, and a token given to another bus is ignored.
///
/// ```swift
/// final class LoginScreen {
///     var tokens: Set<ObservationToken> = []
///     func viewDidAppear(bus: Bus) {
///         tokens.insert(bus.observe(KeyboardWillShow.self, owner: self) { _ in /* move the form */ })
///     }
/// }
/// ```
public struct ObservationToken: Hashable, Sendable {
    let box: TokenBox

    /// The observer's id, as recorded in traces.
    public var observerID: UInt64 { box.observer.id }

    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs.box === rhs.box }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
}

/// Removes its observer when it is deallocated, that is when the last
/// ``ObservationToken`` holding it goes away.
final class TokenBox: Sendable {
    let observer: Observer

    init(observer: __owned Observer) {
        self.observer = observer
    }

    /// Its bus's handle, shared by all of the bus's tokens, reached through the observer's
    /// list (one reference less to retain and release per token): compared by identity, a
    /// pointer compare where a weak reference to the bus would cost a load (and its
    /// creation and destruction one atomic operation each), and the way to the bus
    /// when the token goes.
    var handle: BusHandle { observer.list.handle }

    deinit {
        // Removed already (by the token, or its owner gone): the removal is recorded,
        // nothing is left to do, and no lock is taken. `isActive` only ever goes from
        // true to false, under the bus's lock; `removeObserver` checks it again there.
        guard observer.isActive.load(ordering: .relaxed) else { return }
        handle.bus?.removeObserver(observer, reason: .tokenReleased, reportMissing: false)
    }
}

/// A bus's identity for its tokens: made with the bus, it outlives it while tokens
/// hold it, and a new bus at a released bus's address gets a new one.
final class BusHandle: @unchecked Sendable {
    // @unchecked: `bus` is set once, in the bus's initializer, before the bus (and
    // so this handle) can reach another thread; it is only read afterwards.
    weak var bus: Bus?
}

/// A block observer's registration: what Foundation's
/// `addObserver(forName:object:queue:using:)` returns.
///
/// The bus keeps the block until ``Bus/removeObserver(_:file:line:)-(BlockObservation,_,_)``
/// is called with this object; releasing it removes nothing, and neither do the
/// removals by owner. Removing twice is harmless and recorded as an unbalanced removal.
///
/// ```swift
/// observation = bus.addObserver(forName: KeyboardWillShow.self, owner: self, capture: .weak) { note in … }
/// // in deinit or when the screen goes away:
/// bus.removeObserver(observation)
/// ```
public final class BlockObservation: Hashable, Sendable {
    let observer: Observer
    weak let bus: Bus?

    init(observer: Observer, bus: Bus) {
        self.observer = observer
        self.bus = bus
    }

    /// The observer's id, as recorded in traces.
    public var observerID: UInt64 { observer.id }

    public static func == (lhs: BlockObservation, rhs: BlockObservation) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
