import Foundation
import NotifyBus
import Testing
@testable import TraceStore

/// `PayloadDecoder` answers only where it answers as `JSONDecoder` does, and says when it cannot.
struct PayloadDecoderTests {
    struct Inner: Codable, Equatable { var x: Double; var label: String? }
    enum Mode: String, Codable { case on, off }
    enum Level: Int, Codable { case low = 1, high = 2 }
    struct Everything: Codable, Equatable {
        var flag: Bool
        var count: Int
        var small: Int8
        var big: UInt64
        var ratio: Double
        var name: String
        var inner: Inner
        var list: [Inner]
        var numbers: [Int?]
        var table: [String: Int]
        var mode: Mode
        var level: Level
        var missing: String?
    }
    /// Catches a failure of its own: the decoder must not answer a value JSONDecoder would not.
    struct Forgiving: Codable, Equatable {
        var value: Float
        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            value = (try? container.decode(Float.self, forKey: .value)) ?? -1
        }
        enum CodingKeys: String, CodingKey { case value }
    }
    struct WithFloat: Codable, Equatable { var f: Float }
    struct WithDate: Codable, Equatable { var d: Date }
    struct WithInt: Codable, Equatable { var n: Int }
    struct WithText: Codable, Equatable { var s: String }
    struct WithDouble: Codable, Equatable { var v: Double }

    static func fast<T: Decodable>(_ type: T.Type, _ json: String) -> T? {
        Data(json.utf8).withUnsafeBytes { PayloadDecoder.decode(type, from: $0) }
    }

    static func foundation<T: Decodable>(_ type: T.Type, _ json: String) -> T? {
        try? PayloadCoding.decoder().decode(type, from: Data(json.utf8))
    }

    @Test func recordedPayloadsTakeTheFastPathAndDecodeTheSame() throws {
        let encoder = PayloadCoding.encoder()
        let show = KeyboardWillShow(beginFrame: Rect(x: 0, y: 844, width: 390, height: 336.25),
                                    endFrame: Rect(x: 0, y: 508, width: 390, height: 336.25), curve: .easeInOut, duration: 0.25)
        let json = String(decoding: try encoder.encode(show), as: UTF8.self)
        #expect(Self.fast(KeyboardWillShow.self, json) == show)
        #expect(try PayloadCoding.decode(KeyboardWillShow.self, from: Data(json.utf8)) == show)

        let everything = Everything(flag: true, count: -42, small: -8, big: UInt64.max, ratio: 1e-300, name: "a \"q\" \\ / \n\t\u{1}",
                                    inner: Inner(x: 0.1, label: nil), list: [Inner(x: -0.5, label: "l"), Inner(x: 3, label: nil)],
                                    numbers: [1, nil, 3], table: ["a": 1, "b": 2], mode: .off, level: .high, missing: nil)
        let text = String(decoding: try encoder.encode(everything), as: UTF8.self)
        #expect(Self.fast(Everything.self, text) == everything)
        #expect(Self.fast(Everything.self, text) == Self.foundation(Everything.self, text))

        // Non-finite doubles are written as strings and read back.
        let nan = try #require(Self.fast(WithDouble.self, String(decoding: try encoder.encode(WithDouble(v: .nan)), as: UTF8.self)))
        #expect(nan.v.isNaN)
        #expect(Self.fast(WithDouble.self, #"{"v":"-Infinity"}"#) == WithDouble(v: -.infinity))
    }

    @Test(arguments: [
        #"{"n":1.0}"#, #"{"n":1e2}"#, #"{"n":9223372036854775808}"#, #"{"n":"1"}"#, #"{"n":01}"#, #"{"n":1,"n":2}"#,
        #"{"n":1} x"#, #"{"n":-}"#, #"{"n":1,}"#, #"{}"#, #"[1]"#, #"{"n":null}"#, #"{"n":true}"#,
    ])
    func integersTheFastPathDoesNotDecideAreLeftToFoundation(json: String) {
        #expect(Self.fast(WithInt.self, json) == nil)
    }

    @Test(arguments: [
        #"{"s":"café"}"#, #"{"s":"\u00e9"}"#, #"{"s":"\ud83d\ude00"}"#, "{\"s\":\"tab\u{9}inside\"}", #"{"s":"\x"}"#, #"{"s":"open}"#,
    ])
    func stringsTheFastPathDoesNotDecideAreLeftToFoundation(json: String) {
        #expect(Self.fast(WithText.self, json) == nil)
    }

    @Test func typesFoundationDecodesItsOwnWayAreLeftToIt() throws {
        #expect(Self.fast(WithFloat.self, #"{"f":0.1}"#) == nil)
        #expect(Self.fast(WithDate.self, #"{"d":0}"#) == nil)
        #expect(Self.fast(WithDouble.self, #"{"v":1e400}"#) == nil)
        // A failure the type catches still sends the payload to JSONDecoder, which decodes the Float.
        #expect(Self.fast(Forgiving.self, #"{"value":0.5}"#) == nil)
        #expect(try PayloadCoding.decode(Forgiving.self, from: Data(#"{"value":0.5}"#.utf8)).value == 0.5)
    }

    @Test(arguments: [
        #"{"v":0}"#, #"{"v":-0.0}"#, #"{"v":1.7976931348623157e308}"#, #"{"v":5e-324}"#, #"{"v":0.30000000000000004}"#,
        #"{"v":123456789012345678901234567890}"#, #" { "v" : 2.5E+3 } "#, #"{"v":"NaN"}"#, #"{"v":"nan"}"#,
    ])
    func doublesDecodeAsFoundationDecodesThem(json: String) throws {
        let expected = Self.foundation(WithDouble.self, json)
        guard let fast = Self.fast(WithDouble.self, json) else { return }
        let value = try #require(expected).v
        #expect(fast.v.bitPattern == value.bitPattern)
    }

    @Test func errorsAreFoundationsOwn() {
        let data = Data(#"{"n":"x"}"#.utf8)
        var fastError = "", foundationError = ""
        do { _ = try PayloadCoding.decode(WithInt.self, from: data) } catch { fastError = "\(error)" }
        do { _ = try PayloadCoding.decoder().decode(WithInt.self, from: data) } catch { foundationError = "\(error)" }
        #expect(!fastError.isEmpty)
        #expect(fastError == foundationError)
    }

    /// An object of many members is left to JSONDecoder (its members are searched one by one
    /// here, which would grow with the square of a large payload), and decodes as JSONDecoder decodes it.
    @Test func anObjectOfManyMembersIsLeftToJSONDecoder() throws {
        struct Table: Codable, Equatable { var table: [String: Int] }
        for count in [PayloadDecoder.Parser.maxMembers, PayloadDecoder.Parser.maxMembers + 1, 10_000] {
            let body = (0..<count).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
            let json = Data("{\"table\":{\(body)}}".utf8)
            let ours = json.withUnsafeBytes { PayloadDecoder.decode(Table.self, from: $0) }
            #expect((ours == nil) == (count > PayloadDecoder.Parser.maxMembers), "\(count)")
            let expected = try PayloadCoding.decoder().decode(Table.self, from: json)
            #expect(try PayloadCoding.decode(Table.self, from: json) == expected)
            #expect(expected.table.count == count)
        }
    }
}
