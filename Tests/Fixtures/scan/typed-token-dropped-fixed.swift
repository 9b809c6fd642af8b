import Foundation
import UIKit

// Fixed: the token is kept for the screen's life.
struct SessionExpired: NotificationCenter.MainActorMessage {
    typealias Subject = AnyObject
}

final class AccountViewController: UIViewController {
    private var expiryToken: NotificationCenter.ObservationToken?

    override func viewDidLoad() {
        super.viewDidLoad()
        expiryToken = NotificationCenter.default.addObserver(of: nil, for: SessionExpired.self) { [weak self] _ in
            self?.signOut()
        }
    }

    private func signOut() {}
}
