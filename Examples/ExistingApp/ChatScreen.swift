import Foundation

/// Pattern 5, the bug: a block that captures `self` strongly. The center keeps the block, the
/// block keeps the screen: popped, the screen is never released (its `deinit`, which would remove
/// the block, never runs), and it keeps marking messages read each time the app becomes active.
@MainActor
final class ChatScreen: LifecycleViewController {
    private var activeObserver: (any NSObjectProtocol)?
    private(set) var markedRead = 0

    override func viewDidLoad() {
        super.viewDidLoad()
        activeObserver = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil
        ) { _ in
            MainActor.assumeIsolated { self.markedRead += 1 }
        }
    }

    isolated deinit {
        if let activeObserver { NotificationCenter.default.removeObserver(activeObserver) }
    }
}
