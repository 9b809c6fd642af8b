import UIKit

// A block observer whose token is thrown away: nothing can remove it, and it runs after the
// screen is gone.
final class FeedViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.addObserver(forName: .feedDidRefresh, object: nil, queue: .main) { [weak self] _ in
            self?.reload()
        }
    }

    private func reload() {}
}

extension Notification.Name {
    static let feedDidRefresh = Notification.Name("FeedDidRefresh")
}
