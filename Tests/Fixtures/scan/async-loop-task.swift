import UIKit

// A `for await` loop over notifications(named:) in a Task that is never cancelled: the Task
// holds self for as long as the loop runs, which is for ever.
final class DownloadsViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        Task {
            for await _ in NotificationCenter.default.notifications(named: .downloadDidFinish) {
                refresh()
            }
        }
    }

    private func refresh() {}
}

extension Notification.Name {
    static let downloadDidFinish = Notification.Name("DownloadDidFinish")
}
