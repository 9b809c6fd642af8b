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
    /// Weak, and compared by identity: an `ObjectIdentifier` would match a new
    /// bus allocated at a released bus's address.
    weak let bus: Bus?

    init(observer: Observer, bus: Bus) {
        self.observer = observer
        self.bus = bus
    }

    deinit {
        bus?.removeObserver(observer, reason: .tokenReleased, reportMissing: false)
    }
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
