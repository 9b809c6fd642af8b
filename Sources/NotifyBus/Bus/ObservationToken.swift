/// A handle on one observer of a ``Bus``.
///
/// The observer stays registered while any copy of its token exists; when the
/// last copy is released the observer is removed (recorded with reason
/// ``RemovalReason/tokenReleased``). ``Bus/remove(_:)`` removes it earlier;
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
    public var observerID: UInt64 { box.observerID }

    public static func == (lhs: ObservationToken, rhs: ObservationToken) -> Bool { lhs.box === rhs.box }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(box)) }
}

/// Removes its observer when it is deallocated, that is when the last
/// ``ObservationToken`` holding it goes away.
final class TokenBox: Sendable {
    let observer: Observer
    let busID: ObjectIdentifier
    private weak let bus: Bus?

    init(observer: Observer, bus: Bus) {
        self.observer = observer
        self.busID = ObjectIdentifier(bus)
        self.bus = bus
    }

    var observerID: UInt64 { observer.id }

    deinit {
        bus?.removeObserver(observer, reason: .tokenReleased, reportMissing: false)
    }
}
