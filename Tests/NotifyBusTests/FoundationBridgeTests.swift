import Foundation
import NotifyBus
import Testing

@MainActor @Suite struct FoundationBridgeTests {
    let center = NotificationCenter()

    @Test func keyboardNotificationBecomesTypedMessage() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: center, bus: bus)
        let log = Log<KeyboardWillShow>()
        let token = bus.observe(KeyboardWillShow.self) { log.append($0) }
        center.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: [
            FoundationBridge.frameBeginKey: CGRect(x: 0, y: 844, width: 390, height: 336),
            FoundationBridge.frameEndKey: Rect(x: 0, y: 508, width: 390, height: 336),
            FoundationBridge.curveKey: 7,
            FoundationBridge.durationKey: 0.25,
        ])
        #expect(log.all == [KeyboardWillShow(beginFrame: Rect(x: 0, y: 844, width: 390, height: 336),
                                             endFrame: Rect(x: 0, y: 508, width: 390, height: 336),
                                             curve: .keyboard, duration: 0.25)])
        #expect(sink.events.map(describe).contains("post 1 keyboardWillShow parent:- stimulus"))
        _ = (bridge, token)
    }

    static func malformed(_ index: Int) -> (userInfo: [String: Any], reason: String) {
        switch index {
        case 0: return ([:], "userInfo has no UIKeyboardFrameBeginUserInfoKey")
        case 1: return ([FoundationBridge.frameBeginKey: "tall", FoundationBridge.frameEndKey: Rect.zero,
                         FoundationBridge.curveKey: 7, FoundationBridge.durationKey: 0.25],
                        "UIKeyboardFrameBeginUserInfoKey is String, not a rectangle")
        default: return ([FoundationBridge.frameBeginKey: Rect.zero, FoundationBridge.frameEndKey: Rect.zero,
                          FoundationBridge.curveKey: 99, FoundationBridge.durationKey: 0.25],
                         "UIKeyboardAnimationCurveUserInfoKey 99 is not an animation curve")
        }
    }

    @Test(arguments: 0..<3)
    func malformedUserInfoIsRejectedWithItsReason(index: Int) {
        let (userInfo, reason) = Self.malformed(index)
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: center, bus: bus)
        let log = Log<Int>()
        let token = bus.observe(KeyboardWillHide.self) { _ in log.append(1) }
        center.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: userInfo)
        #expect(log.all.isEmpty)
        #expect(bridge.rejectedCount == 1)
        #expect(sink.events.map(describe).last == "rejected UIKeyboardWillHideNotification: \(reason)")
        _ = token
    }

    @Test func activityAndOrientationNotificationsAreBridged() {
        let bus = Bus()
        let bridge = FoundationBridge(center: center, bus: bus)
        let log = Log<String>()
        let token = bus.observeAll { message in
            if let change = message as? OrientationDidChange {
                log.append("orientation \(change.device) \(change.interface)")
            } else {
                log.append(type(of: message).name)
            }
        }
        center.post(name: FoundationBridge.willResignActive, object: nil)
        center.post(name: FoundationBridge.didEnterBackground, object: nil)
        center.post(name: FoundationBridge.orientationDidChange, object: nil,
                    userInfo: [FoundationBridge.orientationKey: DeviceOrientation.landscapeLeft.rawValue])
        #expect(log.all == ["willResignActive", "didEnterBackground", "orientation landscapeLeft landscapeRight"])
        _ = (bridge, token)
    }

    @Test func releasedBridgeStopsListening() {
        let bus = Bus()
        let log = Log<Int>()
        let token = bus.observe(DidBecomeActive.self) { _ in log.append(1) }
        do {
            let bridge = FoundationBridge(center: center, bus: bus)
            center.post(name: FoundationBridge.didBecomeActive, object: nil)
            _ = bridge
        }
        center.post(name: FoundationBridge.didBecomeActive, object: nil)
        #expect(log.all == [1])
        _ = token
    }
}
