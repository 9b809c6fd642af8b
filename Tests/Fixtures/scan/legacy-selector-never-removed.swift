import UIKit

// Before iOS 9 the center did not drop a selector observer whose target was deallocated: the
// next post messaged the freed screen. Scanned with --ios-deployment-target 8.0.
final class LegacyInboxViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.addObserver(self, selector: #selector(inboxDidSync),
                                               name: NSNotification.Name("InboxDidSync"), object: nil)
    }

    @objc private func inboxDidSync() {}
}
