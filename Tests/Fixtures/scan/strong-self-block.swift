import UIKit

// A popup whose block captures self strongly: the center keeps the block, the block keeps
// the popup, and the deinit that would remove it never runs.
final class PopupViewController: UIViewController {
    private var dismissObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        dismissObserver = NotificationCenter.default.addObserver(forName: .popupShouldDismiss, object: nil, queue: .main) { _ in
            self.dismiss(animated: true)
        }
    }

    deinit {
        if let dismissObserver { NotificationCenter.default.removeObserver(dismissObserver) }
    }
}

extension Notification.Name {
    static let popupShouldDismiss = Notification.Name("PopupShouldDismiss")
}
