import AVFoundation
import UIKit

// Fixed: [weak self], and the observation removed in deinit.
final class InterruptionHandler: NSObject {
    private var observer: NSObjectProtocol?

    override init() {
        super.init()
        observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                                          object: nil, queue: .main) { [weak self] note in
            self?.handle(note)
        }
    }

    deinit {
        if let observer { NotificationCenter.default.removeObserver(observer) }
    }

    private func handle(_ note: Notification) {}
}
