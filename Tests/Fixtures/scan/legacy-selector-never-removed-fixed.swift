import UIKit

// Fixed for iOS 8: removed in deinit.
final class LegacyInboxViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.addObserver(self, selector: #selector(inboxDidSync),
                                               name: NSNotification.Name("InboxDidSync"), object: nil)
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    @objc private func inboxDidSync() {}
}
