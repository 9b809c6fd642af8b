import UIKit

// The block's token is reassigned at each viewWillAppear without removing the old one: the
// old observation stays registered with nobody able to remove it.
final class CartViewController: UIViewController {
    private var badgeObserver: NSObjectProtocol?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        badgeObserver = NotificationCenter.default.addObserver(forName: .cartDidChange, object: nil, queue: .main) { [weak self] _ in
            self?.updateBadge()
        }
    }

    deinit {
        if let badgeObserver { NotificationCenter.default.removeObserver(badgeObserver) }
    }

    private func updateBadge() {}
}

extension Notification.Name {
    static let cartDidChange = Notification.Name("CartDidChange")
}
