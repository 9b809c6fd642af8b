import UIKit

// The same screen with the block capturing self weakly and removed by its token in deinit.
final class PlayerViewController: UIViewController {
    private var signInObserver: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.addObserver(self, selector: #selector(themeDidChange), name: .themeDidChange, object: nil)
        signInObserver = NotificationCenter.default.addObserver(forName: .accountDidSignIn, object: nil, queue: .main) { [weak self] _ in
            self?.reloadProfile()
        }
    }

    deinit {
        if let signInObserver { NotificationCenter.default.removeObserver(signInObserver) }
        NotificationCenter.default.removeObserver(self)
    }

    @objc private func themeDidChange() {}
    private func reloadProfile() {}
}

extension Notification.Name {
    static let themeDidChange = Notification.Name("ThemeDidChange")
    static let accountDidSignIn = Notification.Name("AccountDidSignIn")
}
