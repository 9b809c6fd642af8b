// Records an app written against NotificationCenter, without rewriting it.
//
//   swift run RecordExistingApp [trace-path]
//   tracectl leaks [trace-path]
//
// The "app" below is ordinary NotificationCenter code. The one change that records it is
// the line that picks the center (see `makeCenter`).
import Foundation
import NotifyBus
import TraceStore

// MARK: The app, as it was written

let keyboardWillShow = Notification.Name("UIKeyboardWillShowNotification")
let cartDidChange = Notification.Name("CartDidChange")

/// An SF-0011 typed message.
struct CartDidChange: NotificationCenter.MainActorMessage, Codable {
    typealias Subject = AnyObject
    var count: Int
}

/// Keeps its observation and never removes it: when the screen goes, the block stays.
final class CheckoutScreen {
    let center: RecordingNotificationCenter
    var keyboardObserver: (any NSObjectProtocol)?
    init(center: RecordingNotificationCenter) { self.center = center }

    func viewDidLoad() {
        keyboardObserver = center.addObserver(forName: keyboardWillShow, object: nil, queue: nil) { note in
            print("checkout: keyboard", note.userInfo?["UIKeyboardFrameEndUserInfoKey"].map { "\($0)" } ?? "?")
        }
    }
}

/// Believes `removeObserver(self)` removes its block.
final class CartScreen {
    let center: RecordingNotificationCenter
    var cartObserver: (any NSObjectProtocol)?
    init(center: RecordingNotificationCenter) { self.center = center }

    func viewDidLoad() {
        cartObserver = center.addObserver(forName: cartDidChange, object: nil, queue: .main) { note in
            print("cart screen: \(note.userInfo?["count"] ?? "?") items")
        }
    }

    func viewDidDisappear() { center.removeObserver(self) }
}

/// Drops its typed token at once: it never hears anything.
@MainActor final class BadgeView {
    var count = 0
    func attach(to center: RecordingNotificationCenter) {
        _ = center.addObserver(for: CartDidChange.self) { [weak self] message in self?.count = message.count }
    }
}

@MainActor
func runApp(center: RecordingNotificationCenter) {
    var checkout: CheckoutScreen? = CheckoutScreen(center: center)
    checkout?.viewDidLoad()
    center.post(name: keyboardWillShow, object: nil, userInfo: [
        "UIKeyboardFrameBeginUserInfoKey": Rect(x: 0, y: 844, width: 390, height: 0),
        "UIKeyboardFrameEndUserInfoKey": Rect(x: 0, y: 508, width: 390, height: 336),
        "UIKeyboardAnimationCurveUserInfoKey": 7, "UIKeyboardAnimationDurationUserInfoKey": 0.25,
    ])
    checkout = nil

    let cart = CartScreen(center: center)
    cart.viewDidLoad()
    center.post(name: cartDidChange, object: nil, userInfo: ["count": 2])
    cart.viewDidDisappear()

    let badge = BadgeView()
    badge.attach(to: center)
    center.post(CartDidChange(count: 3))
    print("badge shows \(badge.count)")
    _ = checkout
}

// MARK: Recording it

let path = CommandLine.arguments.dropFirst().first ?? "record-existing-app.trace"
let recorder: TraceRecorder
do {
    recorder = try TraceRecorder(path: path, session: SessionInfo(name: "record-existing-app", app: "RecordExistingApp"))
} catch {
    FileHandle.standardError.write(Data("RecordExistingApp: \(error)\n".utf8))
    exit(2)
}
let bus = Bus(sink: recorder)

/// Was `NotificationCenter.default`.
func makeCenter() -> RecordingNotificationCenter { RecordingNotificationCenter(bus: bus) }

MainActor.assumeIsolated { runApp(center: makeCenter()) }
bus.sweepReleasedOwners()
do {
    try recorder.close()
    let findings = try LeakAnalyzer.analyze(TraceReader(path: path), session: recorder.sessionID)
    print("\nrecorded \(path): \(findings.count) findings")
    for finding in findings {
        print("  \(finding.rule.rawValue)  \(finding.message ?? "every name")  \(finding.owner ?? "no owner")"
            + (finding.ownerLocation.map { " (\($0))" } ?? "") + "  \(finding.callSite)")
    }
} catch {
    FileHandle.standardError.write(Data("RecordExistingApp: \(error)\n".utf8))
    exit(2)
}
