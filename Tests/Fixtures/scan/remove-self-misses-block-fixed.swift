import UIKit

// Fixed: the block observer is removed by its token.
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
        if let themeObserver { NotificationCenter.default.removeObserver(themeObserver) }
    }

    private func applyTheme() {}
}
