import Foundation

/// Pattern 3, fixed: the block is removed by its token when the screen goes.
@MainActor
final class FixedPlayerScreen: LifecycleViewController {
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

    isolated deinit {
        if let backgroundObserver { NotificationCenter.default.removeObserver(backgroundObserver) }
    }
}
