import UIKit

// A screen built on the base controller, in another file.
final class CheckoutViewController: LifecycleViewController {
    override func viewDidLoad() {
        super.viewDidLoad()
    }
}
