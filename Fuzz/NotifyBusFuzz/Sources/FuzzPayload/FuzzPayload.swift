// libFuzzer target: recorded payloads decoded back into messages (what `replay` does with each
// post), differentially. `MessageRegistry` decodes through NotifyBus's own JSON reader when it
// can answer and through `JSONDecoder` otherwise; for every input, the registry and a
// `JSONDecoder` configured as the recorder's must agree: both refuse it, or both give a message
// that encodes to the same bytes.
//
// The input: one byte choosing the type (the catalog's messages, a `NamedMessage`, and types
// with every kind of field a recorded payload has), then the JSON text.
import Foundation
import NotifyBus
import TraceStore

/// Integers of every width, optionals, nesting, arrays, an enum and a dictionary.
private struct Mixed: BusMessage, Equatable {
    enum Mode: String, Codable { case a, b }
    struct Inner: Codable, Equatable { var x: Double; var label: String?; var flags: [Bool] }
    var small: Int8
    var wide: UInt64
    var signed: Int
    var ratio: Double
    var name: String
    var on: Bool
    var inner: Inner?
    var list: [Inner]
    var mode: Mode
    var table: [String: Int]
}

/// A type whose `init(from:)` catches a missing key: the decoders must agree on the fallback too.
private struct Lenient: BusMessage, Equatable {
    var value: Int
    var note: String
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        value = (try? container.decode(Int.self, forKey: .value)) ?? -1
        note = (try? container.decode(String.self, forKey: .note)) ?? "none"
    }
}

private struct Numbers: BusMessage, Equatable {
    var values: [Double]
    var counts: [UInt8]
    var offsets: [Int32]
}

private let types: [any BusMessage.Type] = MessageCatalog.all + [NamedMessage.self, Mixed.self, Lenient.self, Numbers.self]

private let registry: MessageRegistry = {
    var registry = MessageRegistry()
    for type in [Mixed.self, Lenient.self, Numbers.self] as [any BusMessage.Type] { registry.register(type) }
    if !registry.knows(NamedMessage.name) { registry.register(NamedMessage.self) }
    return registry
}()

/// What the recorder writes and a replay read before NotifyBus had its own reader.
private func reference() -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return decoder
}

private func canonical(_ message: any BusMessage) -> Data? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "Infinity", negativeInfinity: "-Infinity", nan: "NaN")
    return try? encoder.encode(message)
}

private func referenceDecode<M: BusMessage>(_ type: M.Type, _ data: Data) -> (any BusMessage)? {
    try? reference().decode(type, from: data)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard size >= 1 else { return 0 }
    let type = types[Int(data[0]) % types.count]
    let json = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    let ours = try? registry.decode(name: type.name, json: json)
    let theirs = referenceDecode(type, Data(json.utf8))
    switch (ours, theirs) {
    case (nil, nil):
        break
    case (let ours?, let theirs?):
        guard canonical(ours) == canonical(theirs) else {
            fatalError("decoders differ on \(type.name): \(json)\nours: \(String(decoding: canonical(ours) ?? Data(), as: UTF8.self))\nJSONDecoder: \(String(decoding: canonical(theirs) ?? Data(), as: UTF8.self))")
        }
    case (nil, _?):
        fatalError("only JSONDecoder decodes \(type.name): \(json)")
    case (_?, nil):
        fatalError("only the registry decodes \(type.name): \(json)")
    }
    return 0
}
