import Foundation
import NotifyBus
import Testing

/// What the `bridge` fuzz target (Scripts/fuzz.sh) found in FoundationBridge: each input
/// reduced to the `userInfo` that shows it.
@Suite struct BridgeFuzzFindingsTests {
    let center = NotificationCenter()

    static let frame = Rect(x: 0, y: 508, width: 390, height: 336)

    /// A keyboard notification whose `key` holds `value`, everything else valid.
    static func keyboard(_ key: String, _ value: Any) -> [String: Any] {
        var info: [String: Any] = [
            FoundationBridge.frameBeginKey: frame, FoundationBridge.frameEndKey: frame,
            FoundationBridge.curveKey: 7, FoundationBridge.durationKey: 0.25,
        ]
        info[key] = value
        return info
    }

    /// `Int(Double)` traps on a curve or orientation outside `Int`'s range, or NaN
    /// (fuzz inputs crash-9288b7ff…, crash-403d9e5c…): the bridge must reject it.
    @Test(arguments: [1e300, -1e300, Double.nan, Double.infinity, 9.3e18])
    func anOutOfRangeCurveOrOrientationIsRejected(value: Double) {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: center, bus: bus)
        center.post(name: FoundationBridge.keyboardWillShow, object: nil,
                    userInfo: Self.keyboard(FoundationBridge.curveKey, value))
        center.post(name: FoundationBridge.orientationDidChange, object: nil,
                    userInfo: [FoundationBridge.orientationKey: value])
        #expect(bridge.rejectedCount == 2)
        let rejected = sink.events.compactMap { event -> String? in
            if case .bridgeRejected(let name, _) = event.kind { return name }
            return nil
        }
        #expect(rejected == [FoundationBridge.keyboardWillShow.rawValue, FoundationBridge.orientationDidChange.rawValue])
    }

    /// A NaN or infinite duration or frame is bridged today and then cannot be encoded
    /// (fuzz inputs crash-f16bafb8…, crash-67457c14…): non-finite floats are rejected where they enter.
    /// The non-finite values, by index: `Any` cannot be a test argument.
    static func nonFinite(_ index: Int) -> (key: String, value: Any) {
        switch index {
        case 0: (FoundationBridge.durationKey, Double.nan)
        case 1: (FoundationBridge.durationKey, -Double.infinity)
        case 2: (FoundationBridge.frameEndKey, Rect(x: 0, y: .infinity, width: 390, height: 336))
        default: (FoundationBridge.frameBeginKey, CGRect(x: CGFloat.nan, y: 0, width: 1, height: 1))
        }
    }

    @Test(arguments: 0..<4)
    func aNonFiniteDurationOrFrameIsRejected(index: Int) {
        let (key, value) = Self.nonFinite(index)
        let bus = Bus()
        let bridge = FoundationBridge(center: center, bus: bus)
        let log = Log<KeyboardWillShow>()
        let token = bus.observe(KeyboardWillShow.self) { log.append($0) }
        center.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: Self.keyboard(key, value))
        #expect(log.all.isEmpty)
        #expect(bridge.rejectedCount == 1)
        _ = token
    }
}
