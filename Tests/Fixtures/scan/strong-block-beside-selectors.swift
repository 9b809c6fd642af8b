import UIKit

// A player screen with correct selector observers (modern semantics: the center drops them when
// the screen is deallocated) and one block that captures self strongly. The block keeps the screen
// alive, so the selectors keep firing too: but fixing the block fixes them, so only the block's
// line is reported.
final class PlayerViewController: UIViewController {
    private var signInObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.addObserver(self, selector: #selector(themeDidChange), name: .themeDidChange, object: nil)
        NotificationCenter.default.addObserver(self, selector: #selector(willEnterForeground),
                                               name: UIApplication.willEnterForegroundNotification, object: nil)
        signInObserver = NotificationCenter.default.addObserver(forName: .accountDidSignIn, object: nil, queue: .main) { _ in
            self.reloadProfile()
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    @objc private func themeDidChange() {}
    @objc private func willEnterForeground() {}
    private func reloadProfile() {}
}

extension Notification.Name {
    static let themeDidChange = Notification.Name("ThemeDidChange")
    static let accountDidSignIn = Notification.Name("AccountDidSignIn")
}
