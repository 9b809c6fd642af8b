/// The app's base view controller (the seeds' "better base UIViewController"): the one place that
/// tells the recording center about its screens, so that the trace has screen lanes, off-screen
/// deliveries and observers that outlived their screen.
@MainActor
class LifecycleViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.recordScreen(self, .viewDidLoad)
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        NotificationCenter.default.recordScreen(self, .viewWillAppear)
    }

    override func viewDidAppear(_ animated: Bool) {
        super.viewDidAppear(animated)
        NotificationCenter.default.recordScreen(self, .viewDidAppear)
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        NotificationCenter.default.recordScreen(self, .viewWillDisappear, leaving: isMovingFromParent || isBeingDismissed)
    }

    override func viewDidDisappear(_ animated: Bool) {
        super.viewDidDisappear(animated)
        NotificationCenter.default.recordScreen(self, .viewDidDisappear)
    }

    deinit {
        NotificationCenter.default.recordScreen(self, .deinit)
    }
}

/// The screen at the bottom of every stack here.
@MainActor
final class HomeScreen: LifecycleViewController {}
