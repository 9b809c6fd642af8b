import UIKit

// removeObserver(self) in deinit does not remove a block observer: only its token does.
final class ProfileViewController: UIViewController {
    private var themeObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        themeObserver = NotificationCenter.default.addObserver(
            forName: Notification.Name("ThemeDidChange"), object: nil, queue: nil
        ) { [weak self] _ in
            self?.applyTheme()
        }
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    private func applyTheme() {}
}
