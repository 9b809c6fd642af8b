import UIKit

// A navigation bar that observes the content size each time it enters a window and never
// stops: every push and pop that brings its screen back adds the observer again.
final class BrandedNavigationBar: UINavigationBar {
    override func didMoveToWindow() {
        super.didMoveToWindow()
        NotificationCenter.default.addObserver(self, selector: #selector(contentSizeDidChange),
                                               name: UIContentSizeCategory.didChangeNotification, object: nil)
    }

    @objc private func contentSizeDidChange() {}
}
