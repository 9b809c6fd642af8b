import UIKit

// Fixed: the token is kept and removed when the screen goes.
final class FeedViewController: UIViewController {
    private var refreshObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        refreshObserver = NotificationCenter.default.addObserver(forName: .feedDidRefresh, object: nil, queue: .main) { [weak self] _ in
            self?.reload()
        }
    }

    deinit {
        if let refreshObserver { NotificationCenter.default.removeObserver(refreshObserver) }
    }

    private func reload() {}
}

extension Notification.Name {
    static let feedDidRefresh = Notification.Name("FeedDidRefresh")
}
