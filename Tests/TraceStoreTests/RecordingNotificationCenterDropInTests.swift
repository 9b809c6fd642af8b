import Foundation
import NotifyBus
import Testing
import TestSupport
@testable import TraceStore

// The adoption line, as an app writes it once per module (here: for this file only).
fileprivate typealias NotificationCenter = RecordingNotificationCenter

/// Classes as an app writes them against Foundation: a property typed `NotificationCenter`,
/// a parameter, selectors and blocks. Nothing here names the recording center.
private final class KeyboardAwareForm {
    let center: NotificationCenter
    let heard: Log<String>
    var willChange: (any NSObjectProtocol)?

    init(center: NotificationCenter, heard: Log<String>) {
        self.center = center
        self.heard = heard
    }

    func start() {
        center.addObserver(self, selector: KeyboardAwareForm.keyboardWillShow,
                           name: FoundationBridge.keyboardWillShow, object: nil)
        center.addObserver(self, selector: KeyboardAwareForm.keyboardWillHide,
                           name: FoundationBridge.keyboardWillHide, object: nil)
        let heard = self.heard
        willChange = center.addObserver(forName: FoundationBridge.keyboardWillChangeFrame, object: nil, queue: nil) { _ in
            heard.append("block willChangeFrame")
        }
    }

    func keyboardWillShow(_ note: Notification) { heard.append("selector willShow \(note.userInfo?.count ?? 0)") }
    func keyboardWillHide() { heard.append("selector willHide") }

    func stopShowing() { center.removeObserver(self, name: FoundationBridge.keyboardWillShow, object: nil) }
    func stop() { center.removeObserver(self) }
}

private func keyboardInfo(height: Double) -> [AnyHashable: Any] {
    [
        FoundationBridge.frameBeginKey: Rect(x: 0, y: 844, width: 390, height: 0),
        FoundationBridge.frameEndKey: Rect(x: 0, y: 844 - height, width: 390, height: height),
        FoundationBridge.curveKey: 7, FoundationBridge.durationKey: 0.25,
    ]
}

private func lines(_ sink: MemoryTraceSink) -> [String] {
    sink.events.compactMap { event -> String? in
        switch event.kind {
        case .observerAdded(let observer, let message, _, _, _, let kind, _, _): "add \(observer) \(message ?? "*") \(kind)"
        case .observerRemoved(let observer, let message, _, let reason, _):
            "remove \(observer.map(String.init) ?? "-") \(message ?? "*") \(reason)"
        case .posted(let post, let message, _, let parent, let origin):
            "post \(post) \(message.messageName) \(origin)" + (parent.map { " in \($0)" } ?? "")
        case .delivered(let post, let observer): "deliver \(post)->\(observer)"
        case .skipped(let post, let observer): "skip \(post)->\(observer)"
        case .bridgeRejected(let name, _): "rejected \(name)"
        default: nil
        }
    }
}

@Suite struct RecordingNotificationCenterDropInTests {
    /// Posts UIKit makes to the real center, which never go through the recording center, reach
    /// its observers and are recorded: one post at its first observer, a delivery per observer.
    @Test func postsMadeToTheRealCenterDirectlyAreRecordedOnceWithEachDelivery() {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let heard = Log<String>()
        let first = center.addObserver(forName: FoundationBridge.keyboardWillShow, object: nil, queue: nil) { note in
            heard.append("first \(note.userInfo?.count ?? -1)")
        }
        let second = center.addObserver(forName: FoundationBridge.keyboardWillShow, object: nil, queue: nil) { note in
            heard.append("second \(note.userInfo == nil ? "nil" : "\(note.userInfo!.count)")")
        }
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 336))
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: nil)
        center.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 200))
        #expect(heard.all.sorted() == ["first -1", "first 4", "first 4", "second 4", "second 4", "second nil"])
        let recorded = lines(sink).filter { !$0.hasPrefix("add") }
        #expect(recorded.filter { $0.hasPrefix("post") } == [
            "post 1 keyboardWillShow stimulus", "post 2 UIKeyboardWillShowNotification stimulus",
            "post 3 keyboardWillShow app",
        ])
        #expect(recorded.contains("rejected UIKeyboardWillShowNotification"))
        for post in 1...3 {
            #expect(Set(recorded.filter { $0.hasPrefix("deliver \(post)->") }) == ["deliver \(post)->1", "deliver \(post)->2"])
        }
        withExtendedLifetime((first, second)) {}
    }

    /// A handler's own post to the real center is a reaction to the post it handles.
    @Test func aPostMadeDirectlyInsideAHandlerIsAReaction() {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let outer = center.addObserver(forName: .init("Outer"), object: nil, queue: nil) { _ in
            real.post(name: .init("Inner"), object: nil)
        }
        let inner = center.addObserver(forName: .init("Inner"), object: nil, queue: nil) { _ in }
        center.post(name: .init("Outer"), object: nil)
        real.post(name: .init("Outer"), object: nil)
        #expect(lines(sink).filter { !$0.hasPrefix("add") } == [
            "post 1 Outer app", "deliver 1->1", "post 2 Inner reaction in 1", "deliver 2->2",
            "post 3 Outer stimulus", "deliver 3->1", "post 4 Inner reaction in 3", "deliver 4->2",
        ])
        withExtendedLifetime((outer, inner)) {}
    }

    /// `removeObserver(self, name:object:)` removes the selectors it names and only those;
    /// `removeObserver(self)` the rest, and neither removes a block.
    @Test func selectorObserversAreRemovedByNameAndByTargetAndBlocksAreNot() {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let heard = Log<String>()
        let form = KeyboardAwareForm(center: center, heard: heard)
        form.start()
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 300))
        real.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: keyboardInfo(height: 0))
        form.stopShowing()
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 300))
        real.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: keyboardInfo(height: 0))
        form.stop()
        real.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: keyboardInfo(height: 0))
        real.post(name: FoundationBridge.keyboardWillChangeFrame, object: nil, userInfo: keyboardInfo(height: 0))
        #expect(heard.all == ["selector willShow 4", "selector willHide", "selector willHide", "block willChangeFrame"])
        let removals = lines(sink).filter { $0.hasPrefix("remove") }
        #expect(removals == [
            "remove 1 keyboardWillShow explicit",      // by name: the one selector it names
            "remove 2 keyboardWillHide ownerSelectors", // by target: the other
            // the block observation the form holds: missed, as in Foundation
            "remove - * ownerSelectors",
        ])
    }

    /// A target released without removing its selectors: the next post drops them silently, as
    /// Foundation does since iOS 9, and the trace says the target was gone (no finding).
    @Test func aReleasedTargetsSelectorIsDroppedAtTheNextPost() throws {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let heard = Log<String>()
        var form: KeyboardAwareForm? = KeyboardAwareForm(center: center, heard: heard)
        form?.start()
        form = nil
        real.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: keyboardInfo(height: 0))
        real.post(name: FoundationBridge.keyboardWillHide, object: nil, userInfo: keyboardInfo(height: 0))
        #expect(heard.all.isEmpty)
        let recorded = lines(sink).filter { !$0.hasPrefix("add") }
        #expect(recorded == ["post 1 keyboardWillHide stimulus", "skip 1->2", "remove 2 keyboardWillHide ownerGone"])
    }

    /// `removeObserver(self)` in `deinit`, Foundation's standard cleanup, removes the selectors.
    @Test func removeObserverSelfInDeinitRemovesTheSelectors() {
        final class Screen {
            let center: NotificationCenter
            init(center: NotificationCenter) {
                self.center = center
                center.addObserver(self, selector: Screen.changed, name: .init("Changed"), object: nil)
            }
            func changed(_ note: Notification) {}
            deinit { center.removeObserver(self) }
        }
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        do { _ = Screen(center: center) }
        real.post(name: .init("Changed"), object: nil)
        // Removed from the real center too: the post finds no observer, so nothing records it.
        #expect(lines(sink) == ["add 1 Changed selector", "remove 1 Changed ownerSelectors"])
    }

    /// An observer with a queue runs there, and the post waits for it, as in Foundation; its
    /// delivery is recorded against the post, and a post it makes is a reaction.
    @Test func aBlockWithAQueueRunsThereAndThePostWaits() {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        let heard = Log<String>()
        let observation = center.addObserver(forName: .init("Work"), object: nil, queue: queue) { _ in
            heard.append(OperationQueue.current === queue ? "on queue" : "elsewhere")
            Thread.sleep(forTimeInterval: 0.05)
            center.post(name: .init("Done"), object: nil)
            heard.append("finished")
        }
        center.post(name: .init("Work"), object: nil)
        heard.append("post returned")
        #expect(heard.all == ["on queue", "finished", "post returned"])
        #expect(lines(sink).filter { !$0.hasPrefix("add") } == ["post 1 Work app", "deliver 1->1", "post 2 Done reaction in 1"])
        withExtendedLifetime(observation) {}
    }

    /// With a `FoundationBridge` on the same bus and center, each notification is one post in
    /// the trace, whoever sees it first, and the bus's observers hear it once.
    @MainActor @Test func aBridgeAndARecordingCenterRecordEachPostOnce() {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let bus = Bus(sink: sink)
        let bridge = FoundationBridge(center: real, bus: bus)
        let center = NotificationCenter(bus: bus, center: real)
        let heard = Log<String>()
        let token = bus.observe(KeyboardWillShow.self) { note in heard.append("bus \(note.endFrame.height)") }
        let observation = center.addObserver(forName: FoundationBridge.keyboardWillShow, object: nil, queue: nil) { _ in
            heard.append("block")
        }
        center.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 300))
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: keyboardInfo(height: 200))
        real.post(name: FoundationBridge.keyboardWillShow, object: nil, userInfo: nil)
        #expect(heard.all.sorted() == ["block", "block", "block", "bus 200.0", "bus 300.0"])
        let posts = lines(sink).filter { $0.hasPrefix("post") }
        #expect(posts == ["post 1 keyboardWillShow app", "post 2 keyboardWillShow stimulus",
                          "post 3 UIKeyboardWillShowNotification stimulus"])
        #expect(lines(sink).filter { $0.hasPrefix("rejected") }.count == 1)
        #expect(bridge.rejectedCount == 1)
        withExtendedLifetime((token, observation, bridge)) {}
    }

    /// `notifications(named:)` is recorded as an observer and hears the posts, in order.
    @Test func notificationsNamedIsRecordedAndHearsThePosts() async {
        let sink = MemoryTraceSink()
        let real = Foundation.NotificationCenter()
        let center = NotificationCenter(bus: Bus(sink: sink), center: real)
        let stream = center.notifications(named: .init("Tick"))
        center.post(name: .init("Tick"), object: nil, userInfo: ["n": 1])
        real.post(name: .init("Tick"), object: nil, userInfo: ["n": 2])
        var seen: [Int] = []
        for await note in stream {
            seen.append(note.userInfo?["n"] as? Int ?? -1)
            if seen.count == 2 { break }
        }
        #expect(seen == [1, 2])
        #expect(lines(sink).prefix(5) == ["add 1 Tick block", "post 1 Tick app", "deliver 1->1", "post 2 Tick stimulus",
                                           "deliver 2->1"])
    }

    /// The default center wraps Foundation's default one and records once `record(into:)` is called.
    @Test func theDefaultCenterWrapsFoundationsDefaultAndRecordsIntoTheGivenBus() {
        #expect(NotificationCenter.default.center === Foundation.NotificationCenter.default)
        let sink = MemoryTraceSink()
        let name = Notification.Name("DropInDefaultCenterTest.\(UUID())")
        let heard = Log<String>()
        NotificationCenter.record(into: Bus(sink: sink))
        defer { NotificationCenter.stopRecording() }
        let observation = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { note in
            heard.append(note.name.rawValue)
        }
        Foundation.NotificationCenter.default.post(name: name, object: nil)
        NotificationCenter.default.removeObserver(observation)
        #expect(heard.all == [name.rawValue])
        #expect(lines(sink) == ["add 1 \(name.rawValue) block", "post 1 \(name.rawValue) stimulus", "deliver 1->1",
                                "remove 1 \(name.rawValue) explicit"])
    }
}
