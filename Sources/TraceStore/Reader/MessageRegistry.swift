import Foundation
public import NotifyBus

/// Decodes recorded payloads back into typed messages, by message name.
///
/// The catalog's messages are registered by default; register your own types
/// to read their payloads.
///
/// ```swift
/// var registry = MessageRegistry()
/// registry.register(CartChanged.self)
/// let message = try registry.decode(name: "CartChanged", json: #"{"items":3}"#)
/// ```
public struct MessageRegistry: Sendable {
    private var decoders: [String: @Sendable (Data) throws -> any BusMessage] = [:]

    /// A registry of the catalog's messages.
    public init() {
        for type in MessageCatalog.all { register(type) }
    }

    /// Makes `type` decodable under `type.name`.
    public mutating func register<M: BusMessage>(_ type: M.Type) {
        decoders[M.name] = { data in try PayloadCoding.decode(M.self, from: data) }
    }

    /// Whether a message called `name` can be decoded.
    public func knows(_ name: String) -> Bool { decoders[name] != nil }

    /// Decodes a recorded payload.
    ///
    /// - Throws: ``TraceStoreError`` when the name is unknown or the JSON does not fit the type.
    public func decode(name: String, json: String) throws(TraceStoreError) -> any BusMessage {
        guard let decode = decoders[name] else {
            throw TraceStoreError(.misuse, "no message type registered for '\(name)'")
        }
        do {
            return try decode(Data(json.utf8))
        } catch {
            throw TraceStoreError(.misuse, "payload of '\(name)' does not decode: \(error)")
        }
    }
}
