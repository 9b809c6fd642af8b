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
    /// Defaults to the type's name. Two types must not share a name on one bus.
    static var name: String { get }

    /// The name of this message: ``name`` for typed messages, the instance's own
    /// for a ``NamedMessage``.
    var messageName: String { get }
}

extension BusMessage {
    public static var name: String { String(describing: Self.self) }
    public var messageName: String { Self.name }
}
