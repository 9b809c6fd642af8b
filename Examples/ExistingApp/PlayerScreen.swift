import Foundation

/// Pattern 3, the bug: an `[unowned self]` block, "removed" in `deinit` by `removeObserver(self)`,
/// which removes no block. After the screen is gone, the next `didEnterBackground` runs the block
/// on a deallocated `self`: a crash. (The example stops before that post; the trace already shows
/// the block registered past its screen.)
@MainActor
final class PlayerScreen: LifecycleViewController {
    private var backgroundObserver: (any NSObjectProtocol)?
    private(set) var isPlaying = true

    override func viewDidLoad() {
        super.viewDidLoad()
        backgroundObserver = NotificationCenter.default.addObserver(
            forName: UIApplication.didEnterBackgroundNotification, object: nil, queue: nil
        ) { [unowned self] _ in
            MainActor.assumeIsolated { self.isPlaying = false }
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }
}
