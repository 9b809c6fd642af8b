import UIKit

// Fixed: [weak self]: the popup is released and its deinit removes the observer.
final class PopupViewController: UIViewController {
    private var dismissObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        dismissObserver = NotificationCenter.default.addObserver(forName: .popupShouldDismiss, object: nil, queue: .main) { [weak self] _ in
            self?.dismiss(animated: true)
        }
    }

    deinit {
        if let dismissObserver { NotificationCenter.default.removeObserver(dismissObserver) }
    }
}

extension Notification.Name {
    static let popupShouldDismiss = Notification.Name("PopupShouldDismiss")
}
