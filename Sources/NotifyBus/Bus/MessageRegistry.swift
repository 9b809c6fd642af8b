/// The message types a recording session has seen, by name: a message's identity in
/// the trace is its ``BusMessage/name``, so one name must mean one type.
///
/// Default names are module-qualified (`Shop.Cart.Changed`, `Account.Profile.Changed`),
/// so two types share a name only when they say so. Two different types that claim
/// one name are refused where the second is registered: their observers, removals and
/// trace entries would otherwise merge. Named messages (``NamedMessage``) are found by
/// their own string names, in a namespace of their own, and are not registered here.
///
/// Pure data, used under its session's lock.
struct MessageRegistry {
    /// The type registered under each name.
    private var types: [String: any BusMessage.Type] = [:]
    /// The name of each registered type.
    private var names: [ObjectIdentifier: String] = [:]

    /// The number of message types registered.
    var count: Int { names.count }

    /// Registers `type` under its name, once.
    /// - Returns: The name.
    /// - Throws: ``NotifyBusError`` when another type has that name.
    mutating func register(_ type: any BusMessage.Type) throws(NotifyBusError) -> String {
        let key = ObjectIdentifier(type)
        if let name = names[key] { return name }
        let name = type.name
        if let other = types[name] {
            throw NotifyBusError(
                "message name '\(name)' is claimed by two types: \(String(reflecting: other)) and "
                    + "\(String(reflecting: type)); give one of them its own static name")
        }
        types[name] = type
        names[key] = name
        return name
    }

    /// The name `type` was registered with, if it was.
    func name(of type: any BusMessage.Type) -> String? { names[ObjectIdentifier(type)] }

    /// The type registered under `name`, if any.
    func type(named name: String) -> (any BusMessage.Type)? { types[name] }
}

/// `String(reflecting:)` without the anonymous contexts of private and local types
/// (`App.(unknown context at $10b4c).Ping` reads `App.Ping`), whose addresses change
/// from one build to the next.
func qualifiedTypeName(_ type: Any.Type) -> String {
    let full = String(reflecting: type)
    let marker = "(unknown context at "
    guard full.contains(marker) else { return full }
    var result = ""
    var rest = Substring(full)
    while !rest.isEmpty {
        if rest.hasPrefix(marker), let close = rest.firstIndex(of: ")") {
            rest = rest[rest.index(after: close)...]
            if rest.first == "." { rest = rest.dropFirst() }
        } else {
            result.append(rest.removeFirst())
        }
    }
    return result
}
