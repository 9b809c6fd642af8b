import Foundation
import UIKit

// SF-0011: the token addObserver(of:for:) returns is dropped at once, which removes the
// observation before it hears anything.
struct SessionExpired: NotificationCenter.MainActorMessage {
    typealias Subject = AnyObject
}

final class AccountViewController: UIViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
        _ = NotificationCenter.default.addObserver(of: nil, for: SessionExpired.self) { [weak self] _ in
            self?.signOut()
        }
    }

    private func signOut() {}
}
