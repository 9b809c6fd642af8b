import UIKit

// Fixed: observes while in a window, stops when it leaves.
final class BrandedNavigationBar: UINavigationBar {
    override func didMoveToWindow() {
        super.didMoveToWindow()
        if window == nil {
            NotificationCenter.default.removeObserver(self, name: UIContentSizeCategory.didChangeNotification, object: nil)
        } else {
            NotificationCenter.default.addObserver(self, selector: #selector(contentSizeDidChange),
                                                   name: UIContentSizeCategory.didChangeNotification, object: nil)
        }
    }

    @objc private func contentSizeDidChange() {}
}
