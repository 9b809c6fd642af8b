import Foundation

/// How payloads are written as JSON and read back: the one place both sides agree on.
///
/// JSON has no NaN or infinities, so a non-finite `Double` (a keyboard duration of `.nan`
/// that reached the bus) is written as the string `"NaN"`, `"Infinity"` or `"-Infinity"`,
/// and read back as the same value. Keys are sorted, so equal messages give equal text.
enum PayloadCoding {
    static let nan = "NaN"
    static let infinity = "Infinity"
    static let negativeInfinity = "-Infinity"

    static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: infinity, negativeInfinity: negativeInfinity, nan: nan)
        return encoder
    }

    static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(
            positiveInfinity: infinity, negativeInfinity: negativeInfinity, nan: nan)
        return decoder
    }

    /// Decodes a recorded payload: what `decoder().decode(type, from: data)` returns or throws,
    /// through ``PayloadDecoder`` when it can answer (a keyboard message in a few thousand
    /// instructions instead of ~185 000), through `JSONDecoder` otherwise.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let decoded = data.withUnsafeBytes({ PayloadDecoder.decode(type, from: $0) }) { return decoded }
        return try decoder().decode(type, from: data)
    }

    /// The payload stored for a message whose `encode(to:)` throws: the event is kept, and a
    /// replay reports that this payload does not decode.
    static func unencodable(_ error: any Error) -> String {
        let reason = "\(error)".replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .split(whereSeparator: \.isNewline).joined(separator: " ")
        return #"{"unencodable":""# + reason + #""}"#
    }
}
