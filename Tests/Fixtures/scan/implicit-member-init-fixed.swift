import UIKit

// A screen that registers in its initializer and builds its views with implicit members
// (`.init(type:)`): a call on a type, not `self.init`, so nothing registers twice.
final class SearchViewController: UIViewController {
    init() {
        super.init(nibName: nil, bundle: nil)
        NotificationCenter.default.addObserver(self, selector: #selector(contentSizeDidChange),
                                               name: UIContentSizeCategory.didChangeNotification, object: nil)
    }

    required init?(coder: NSCoder) { fatalError("init(coder:) is not used") }

    override func viewDidLoad() {
        super.viewDidLoad()
        let clear: UIButton = .init(type: .system)
        view.addSubview(clear)
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    @objc private func contentSizeDidChange() {}
}
