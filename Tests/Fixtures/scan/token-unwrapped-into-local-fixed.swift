import UIKit

// Correct code the scan once misread: the token is unwrapped into a local of another name before
// it is removed (`if let observer = languageObserver`, `guard let token = self.keyboardToken`).
final class SettingsViewController: UIViewController {
    private var languageObserver: NSObjectProtocol?
    private var keyboardToken: NSObjectProtocol?

    override func viewDidLoad() {
        super.viewDidLoad()
        languageObserver = NotificationCenter.default.addObserver(forName: .languageDidChange, object: nil, queue: .main) { [weak self] _ in
            self?.relabel()
        }
    }

    override func viewWillAppear(_ animated: Bool) {
        super.viewWillAppear(animated)
        keyboardToken = NotificationCenter.default.addObserver(forName: UIResponder.keyboardWillShowNotification,
                                                               object: nil, queue: .main) { [weak self] _ in
            self?.relabel()
        }
    }

    override func viewWillDisappear(_ animated: Bool) {
        super.viewWillDisappear(animated)
        guard let token = self.keyboardToken else { return }
        NotificationCenter.default.removeObserver(token)
        keyboardToken = nil
    }

    deinit {
        if let observer = languageObserver {
            NotificationCenter.default.removeObserver(observer)
        }
    }

    private func relabel() {}
}

extension Notification.Name {
    static let languageDidChange = Notification.Name("LanguageDidChange")
}
