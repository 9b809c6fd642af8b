/// A typed message that travels on a ``Bus``.
///
/// A message is a value: its payload is its stored properties, so no handler
/// ever casts a `userInfo` dictionary. Messages are `Codable` so that a
/// ``TraceSink`` can store them and a replay can bring them back.
///
/// ```swift
/// struct CartChanged: BusMessage { var items: Int }
/// bus.post(CartChanged(items: 3))
/// ```
public protocol BusMessage: Codable, Sendable {
    /// The name the message is observed, recorded and queried by.
    ///
    /// Defaults to the type's module-qualified name (`Shop.Cart.Changed`), so that
    /// `Cart.Changed` and `Profile.Changed` are two messages. Two types must not share a
    /// name in one recording session: a bus refuses the second where it is first
    /// observed or posted (``Bus/register(_:)``).
    static var name: String { get }

    /// The name of this message: ``name`` for typed messages, the instance's own
    /// for a ``NamedMessage``.
    var messageName: String { get }
}

extension BusMessage {
    public static var name: String { qualifiedTypeName(Self.self) }
    public var messageName: String { Self.name }
}

/// A message that UIKit posts on the main thread, so that its observers run on the
/// main actor: SF-0011's `NotificationCenter.MainActorMessage`.
///
/// Observing one with a closure picks ``Bus``'s overload that takes a `@MainActor`
/// handler, without an annotation: in a `@MainActor` screen the closure may touch
/// the screen's state.
///
/// ```swift
/// @MainActor final class LoginViewController {
///     var formOffset = 0.0
///     var token: ObservationToken?
///     func viewDidLoad(bus: Bus) {
///         token = bus.observe(KeyboardWillShow.self, owner: self) { [weak self] note in
///             self?.formOffset = note.endFrame.height
///         }
///     }
/// }
/// ```
///
/// Posted on the main actor, such a handler runs synchronously, in registration
/// order, like any other; posted from another thread, its delivery is queued for
/// the main actor. Code generic over ``BusMessage`` (`func f<M: BusMessage>`) gets
/// the synchronous, posting-thread handler for every message, these included.
/// The keyboard, activity and orientation messages of the catalog are main-actor
/// messages; declare your own with this protocol.
public protocol MainActorMessage: BusMessage {}
