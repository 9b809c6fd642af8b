import Foundation
import NotifyBus
import Testing
@testable import TraceStore

// MARK: - A program written against NotificationCenter

// Everything below uses NotificationCenter's API as an app of the UIKit years does. The
// one line changed to record it is the type of `center` (was `NotificationCenter`).
typealias AppCenter = RecordingNotificationCenter

let keyboardWillShowName = Notification.Name("UIKeyboardWillShowNotification")
let cartDidChangeName = Notification.Name("CartDidChange")

/// A SF-0011 typed message the app posts about its cart (SF-0011 is new in the OS 26 releases).
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
struct CartDidChange: NotificationCenter.MainActorMessage, Codable {
    typealias Subject = AnyObject
    var count: Int
}

/// Keeps its observation, never removes it: when the screen goes, the block stays forever.
final class CheckoutScreen {
    let center: AppCenter
    let moves: Log<Double>
    var keyboardObserver: (any NSObjectProtocol)?

    init(center: AppCenter, moves: Log<Double>) {
        self.center = center
        self.moves = moves
    }

    func viewDidLoad() {
        let moves = self.moves
        keyboardObserver = center.addObserver(forName: keyboardWillShowName, object: nil, queue: nil) { note in
            let frame = note.userInfo?["UIKeyboardFrameEndUserInfoKey"] as? Rect
            moves.append(frame?.height ?? -1)
        }
    }
}

/// Removes "itself" when it disappears, which removes no block.
final class CartScreen {
    let center: AppCenter
    var cartObserver: (any NSObjectProtocol)?
    let seen: Log<String>

    init(center: AppCenter, seen: Log<String>) {
        self.center = center
        self.seen = seen
    }

    func viewDidLoad() {
        let seen = self.seen
        cartObserver = center.addObserver(forName: cartDidChangeName, object: nil, queue: nil) { note in
            seen.append("cart \(note.userInfo?["count"] as? Int ?? -1) keys \(note.userInfo?.count ?? 0)")
        }
    }

    func viewDidDisappear() {
        center.removeObserver(self)
    }
}

/// Observes a typed message, but drops the token at once.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
@MainActor final class BadgeView {
    var count = 0
    func attach(to center: AppCenter) {
        _ = center.addObserver(for: CartDidChange.self) { [weak self] message in self?.count = message.count }
    }
}

/// Keeps its typed token: hears every post.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
@MainActor final class TotalsView {
    var total = 0
    var token: NotificationCenter.ObservationToken?
    func attach(to center: AppCenter) {
        token = center.addObserver(for: CartDidChange.self) { [weak self] message in self?.total += message.count }
    }
}

private func keyboardInfo(height: Double) -> [AnyHashable: Any] {
    [
        "UIKeyboardFrameBeginUserInfoKey": Rect(x: 0, y: 844, width: 390, height: 0),
        "UIKeyboardFrameEndUserInfoKey": Rect(x: 0, y: 844 - height, width: 390, height: height),
        "UIKeyboardAnimationCurveUserInfoKey": 7, "UIKeyboardAnimationDurationUserInfoKey": 0.25,
    ]
}

/// Runs the program: screens come and go, the keyboard shows, the cart changes.
@available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
@MainActor
func runLegacyApp(center: AppCenter, moves: Log<Double>, seen: Log<String>) -> (badge: Int, total: Int) {
    var checkout: CheckoutScreen? = CheckoutScreen(center: center, moves: moves)
    checkout?.viewDidLoad()
    center.post(name: keyboardWillShowName, object: nil, userInfo: keyboardInfo(height: 336))
    checkout = nil  // the screen goes; its block observer stays

    let cart = CartScreen(center: center, seen: seen)
    cart.viewDidLoad()
    center.post(name: cartDidChangeName, object: nil, userInfo: ["count": 2])
    cart.viewDidDisappear()
    center.post(name: cartDidChangeName, object: nil, userInfo: ["count": 3])  // still heard

    let badge = BadgeView(), totals = TotalsView()
    badge.attach(to: center)
    totals.attach(to: center)
    center.post(CartDidChange(count: 4))
    center.post(name: keyboardWillShowName, object: nil, userInfo: keyboardInfo(height: 200))
    _ = checkout
    return (badge.count, totals.total)
}

// MARK: - Tests

@Suite struct RecordingNotificationCenterTests {
    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @MainActor @Test func aLegacyProgramIsRecordedBySwappingTheCenterWithTheExpectedFindings() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("legacy.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "legacy", app: "tests"))
        let bus = Bus(sink: recorder)
        let center = RecordingNotificationCenter(bus: bus, center: NotificationCenter())
        let moves = Log<Double>(), seen = Log<String>()
        let (badge, total) = runLegacyApp(center: center, moves: moves, seen: seen)
        bus.sweepReleasedOwners()
        try recorder.close()

        // Foundation delivered, as without recording: the leaked block ran after its screen,
        // the missed removal still hears the cart, the dropped token heard nothing.
        #expect(moves.all == [336, 200])
        #expect(seen.all == ["cart 2 keys 1", "cart 3 keys 1"])  // the post id never reaches the app
        #expect(badge == 0)
        #expect(total == 4)

        let reader = try TraceReader(path: path)
        let session = recorder.sessionID
        let findings = try LeakAnalyzer.analyze(reader, session: session)
        let byRule = Dictionary(grouping: findings, by: \.rule)
        // A block observer never removed: its observation went with the screen.
        let outlives = try #require(byRule[.observerOutlivesOwner]?.first)
        #expect(outlives.message == KeyboardWillShow.name)
        #expect(outlives.observerKind == .block)
        #expect(outlives.callSite.hasPrefix("TraceStoreTests/RecordingNotificationCenterTests.swift:"))
        // A removal by owner that misses a block observer: located in the screen that holds it.
        let missed = try #require(byRule[.removalMissesObserver]?.first)
        #expect(missed.message == "CartDidChange")
        #expect(missed.observerKind == .block)
        #expect(missed.ownerLocation?.hasSuffix("in CartScreen") == true)
        // A typed token dropped.
        let dropped = try #require(byRule[.tokenReleasedUnheard]?.first)
        #expect(dropped.message == "CartDidChange")
        #expect(dropped.observerKind == .token)
        #expect(Set(findings.map(\.rule)) == [.observerOutlivesOwner, .deliveryAfterOwnerGone, .removalMissesObserver,
                                               .tokenReleasedUnheard])
        // The block that outlived its screen ran after it: that delivery is counted.
        #expect(byRule[.deliveryAfterOwnerGone]?.first?.deliveryCount == 1)
    }

    @MainActor @Test func namesBecomeCatalogOrNamedMessagesAndEveryDeliveryHasItsPost() throws {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let center = RecordingNotificationCenter(bus: bus, center: NotificationCenter())
        let heard = Log<String>()
        let keyboard = center.addObserver(forName: keyboardWillShowName, object: nil, queue: nil) { note in
            heard.append(note.name.rawValue)
        }
        let custom = center.addObserver(forName: cartDidChangeName, object: nil, queue: nil) { _ in heard.append("cart") }
        center.post(name: keyboardWillShowName, object: nil, userInfo: keyboardInfo(height: 336))
        center.post(name: cartDidChangeName, object: nil, userInfo: ["count": 1])
        // A keyboard name whose userInfo lacks its keys is still delivered, recorded as rejected.
        center.post(name: keyboardWillShowName, object: nil, userInfo: nil)
        center.removeObserver(keyboard)
        center.removeObserver(keyboard)
        center.removeObserver(custom)
        #expect(heard.all == ["UIKeyboardWillShowNotification", "cart", "UIKeyboardWillShowNotification"])

        var posted: [String] = [], delivered: [String] = [], removed: [String] = [], rejected: [String] = []
        for event in sink.events {
            switch event.kind {
            case .posted(let post, let message, _, _, _):
                posted.append("\(post) \(type(of: message)) \(message.messageName)")
                if let named = message as? NamedMessage, named.name == "CartDidChange" { #expect(named.payload == ["count": 1]) }
            case .delivered(let post, let observer): delivered.append("\(post)->\(observer)")
            case .observerRemoved(let observer, _, _, let reason, _):
                removed.append("\(observer.map(String.init) ?? "-") \(reason.rawValue)")
            case .bridgeRejected(let name, _): rejected.append(name)
            default: break
            }
        }
        #expect(posted == ["1 KeyboardWillShow keyboardWillShow", "2 NamedMessage CartDidChange",
                           "3 NamedMessage UIKeyboardWillShowNotification"])
        #expect(delivered == ["1->1", "2->2", "3->1"])
        #expect(removed == ["1 explicit", "1 explicit", "2 explicit"])
        #expect(rejected == ["UIKeyboardWillShowNotification"])
    }

    @available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *)
    @MainActor @Test func aTypedTokenReleasedOrRemovedIsRecordedAsFoundationTreatsIt() throws {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let center = RecordingNotificationCenter(bus: bus, center: NotificationCenter())
        let heard = Log<Int>()
        var kept: NotificationCenter.ObservationToken? = center.addObserver(for: CartDidChange.self) { heard.append($0.count) }
        do { _ = center.addObserver(for: CartDidChange.self) { heard.append(-$0.count) } }
        center.post(CartDidChange(count: 1))
        center.removeObserver(kept!)
        kept = nil
        center.post(CartDidChange(count: 2))
        #expect(heard.all == [1])
        let lines = sink.events.compactMap { event -> String? in
            switch event.kind {
            case .observerAdded(let observer, let message, _, _, _, let kind, _, _): "add \(observer) \(message ?? "*") \(kind)"
            case .observerRemoved(let observer?, _, _, let reason, _): "remove \(observer) \(reason)"
            case .posted(let post, let message, _, _, _): "post \(post) \(message.messageName)"
            case .delivered(let post, let observer): "deliver \(post)->\(observer)"
            default: nil
            }
        }
        #expect(lines == [
            "add 1 CartDidChange token", "add 2 CartDidChange token", "remove 2 tokenReleased",
            "post 1 CartDidChange", "deliver 1->1", "remove 1 explicit", "post 2 CartDidChange",
        ])
    }

    @Test func aTokenReleasedAfterHearingOrWithItsOwnerIsNoFinding() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("t.trace")
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "tokens", app: "tests"))
        let bus = Bus(sink: recorder)
        var heardOnce: ObservationToken? = bus.observe(Ping.self) { _ in }
        bus.post(Ping(n: 1))
        heardOnce = nil  // heard a post first: no finding
        var owner: Owner? = Owner("Screen")
        var withOwner: ObservationToken? = bus.observe(Ping.self, owner: owner!) { _ in }
        owner = nil
        bus.sweepReleasedOwners()
        withOwner = nil  // released with its gone owner: no finding of this rule
        var later: ObservationToken? = bus.observe(Ping.self) { _ in }
        bus.post(NamedMessage(name: "Elsewhere"))
        later = nil  // released after other things happened: on purpose, no finding
        do { _ = bus.observe(Ping.self) { _ in } }  // dropped at once
        bus.post(Ping(n: 2))
        bus.post(Ping(n: 3))
        try recorder.close()
        let findings = try LeakAnalyzer.analyze(try TraceReader(path: path), session: recorder.sessionID,
                                                rules: [.tokenReleasedUnheard])
        #expect(findings.count == 1)
        #expect(findings.first?.observer == 4)
        _ = (heardOnce, withOwner, later)
    }
}
