import UIKit

// A cell made either in code (`init(frame:)`) or from a nib (`init(coder:)`, then `awakeFromNib`):
// each way registers once. `awakeFromNib` never follows `init(frame:)`.
final class EpisodeCell: UICollectionViewCell {
    override init(frame: CGRect) {
        super.init(frame: frame)
        NotificationCenter.default.addObserver(self, selector: #selector(progressDidChange), name: .downloadProgress, object: nil)
    }

    required init?(coder: NSCoder) {
        super.init(coder: coder)
    }

    override func awakeFromNib() {
        super.awakeFromNib()
        NotificationCenter.default.addObserver(self, selector: #selector(progressDidChange), name: .downloadProgress, object: nil)
    }

    deinit {
        NotificationCenter.default.removeObserver(self)
    }

    @objc private func progressDidChange() {}
}

extension Notification.Name {
    static let downloadProgress = Notification.Name("DownloadProgress")
}
