import Foundation
import NotifyBus
import Testing

/// Issue 13, item 4: non-finite and out-of-range numbers are refused where they enter.
@Suite struct HostileBridgeTests {
    let center = NotificationCenter()

    static let frame = Rect(x: 0, y: 508, width: 390, height: 336)

    /// A keyboard userInfo with one value replaced, and the reason its rejection must give.
    static let cases: [(key: String, value: any Sendable, reason: String)] = [
        (FoundationBridge.curveKey, Double.nan, "UIKeyboardAnimationCurveUserInfoKey nan is not a finite number"),
        (FoundationBridge.curveKey, Double.infinity, "UIKeyboardAnimationCurveUserInfoKey inf is not a finite number"),
        (FoundationBridge.curveKey, 1e300, "UIKeyboardAnimationCurveUserInfoKey 1e+300 is not an animation curve"),
        (FoundationBridge.curveKey, 7.5, "UIKeyboardAnimationCurveUserInfoKey 7.5 is not an animation curve"),
        (FoundationBridge.durationKey, Double.nan, "UIKeyboardAnimationDurationUserInfoKey nan is not a finite number"),
        (FoundationBridge.durationKey, -Double.infinity, "UIKeyboardAnimationDurationUserInfoKey -inf is not a finite number"),
        (FoundationBridge.durationKey, NSNumber(value: Double.nan), "UIKeyboardAnimationDurationUserInfoKey nan is not a finite number"),
        (FoundationBridge.frameEndKey, Rect(x: 0, y: .nan, width: 390, height: 336),
         "UIKeyboardFrameEndUserInfoKey has a coordinate that is not a finite number"),
        (FoundationBridge.frameBeginKey, CGRect(x: 0, y: 0, width: CGFloat.infinity, height: 1),
         "UIKeyboardFrameBeginUserInfoKey has a coordinate that is not a finite number"),
    ]

    @Test(arguments: 0..<cases.count)
    func nonFiniteOrOutOfRangeNumbersAreRejected(index: Int) {
        let (key, value, reason) = Self.cases[index]
        var userInfo: [String: Any] = [FoundationBridge.frameBeginKey: Rect.zero, FoundationBridge.frameEndKey: Self.frame,
                                       FoundationBridge.curveKey: 7, FoundationBridge.durationKey: 0.25]
        userInfo[key] = value
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: center, bus: bus)
        let log = Log<Int>()
        let token = bus.observe(KeyboardWillShow.self) { _ in log.append(1) }
        center.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: userInfo)
        #expect(log.all.isEmpty)
        #expect(bridge.rejectedCount == 1)
        #expect(sink.events.map(describe).last == "rejected UIKeyboardWillShowNotification: \(reason)")
        _ = token
    }

    @Test(arguments: [Double.nan, 1e300, -1e300, 3.5])
    func anOrientationThatIsNotAWholeNumberIsRejected(raw: Double) {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: center, bus: bus)
        center.post(name: FoundationBridge.orientationDidChange, object: nil, userInfo: [FoundationBridge.orientationKey: raw])
        #expect(bridge.rejectedCount == 1)
        let last = sink.events.map(describe).last ?? ""
        #expect(last.hasPrefix("rejected UIDeviceOrientationDidChangeNotification: UIDeviceOrientationUserInfoKey "), "\(last)")
    }
}
