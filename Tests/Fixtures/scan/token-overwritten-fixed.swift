import UIKit

// Fixed: removed in viewWillDisappear, so each viewWillAppear starts from none.
final class CartViewController: UIViewController {
    private var badgeObserver: NSObjectProtocol?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        badgeObserver = NotificationCenter.default.addObserver(forName: .cartDidChange, object: nil, queue: .main) { [weak self] _ in
            self?.updateBadge()
        }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        if let badgeObserver { NotificationCenter.default.removeObserver(badgeObserver) }
        badgeObserver = nil
    }

    private func updateBadge() {}
}

extension Notification.Name {
    static let cartDidChange = Notification.Name("CartDidChange")
}
