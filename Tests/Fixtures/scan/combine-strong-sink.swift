import Combine
import UIKit

// A Combine sink that captures self strongly, stored in self's own cancellables: self keeps
// the subscription, the subscription keeps self.
final class SettingsViewController: UIViewController {
    private var cancellables = Set<AnyCancellable>()

    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.publisher(for: .settingsDidChange)
            .sink { _ in
                self.reloadSettings()
            }
            .store(in: &cancellables)
    }

    private func reloadSettings() {}
}

extension Notification.Name {
    static let settingsDidChange = Notification.Name("SettingsDidChange")
}
