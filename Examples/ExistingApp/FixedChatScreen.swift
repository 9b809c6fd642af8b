import Foundation

/// Pattern 5, fixed: `[weak self]`, so that the popped screen is released and its `deinit` removes the block.
@MainActor
final class FixedChatScreen: LifecycleViewController {
    private var activeObserver: (any NSObjectProtocol)?
    private(set) var markedRead = 0

    override func viewDidLoad() {
        super.viewDidLoad()
        activeObserver = NotificationCenter.default.addObserver(
            forName: UIApplication.didBecomeActiveNotification, object: nil, queue: nil
        ) { [weak self] _ in
            MainActor.assumeIsolated { self?.markedRead += 1 }
        }
    }

    isolated deinit {
        if let activeObserver { NotificationCenter.default.removeObserver(activeObserver) }
    }
}
