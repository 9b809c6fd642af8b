import UIKit

// Fixed: the Task is kept and cancelled when the screen goes off screen.
final class DownloadsViewController: UIViewController {
    private var downloads: Task<Void, Never>?

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        downloads = Task { [weak self] in
            for await _ in NotificationCenter.default.notifications(named: .downloadDidFinish) {
                self?.refresh()
            }
        }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        downloads?.cancel()
    }

    private func refresh() {}
}

extension Notification.Name {
    static let downloadDidFinish = Notification.Name("DownloadDidFinish")
}
