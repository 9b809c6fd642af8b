import Combine
import UIKit

// Fixed: [weak self]: the subscription goes with the screen.
final class SettingsViewController: UIViewController {
    private var cancellables = Set<AnyCancellable>()

    override func viewDidLoad() {
        super.viewDidLoad()
        NotificationCenter.default.publisher(for: .settingsDidChange)
            .sink { [weak self] _ in
                self?.reloadSettings()
            }
            .store(in: &cancellables)
    }

    private func reloadSettings() {}
}

extension Notification.Name {
    static let settingsDidChange = Notification.Name("SettingsDidChange")
}
