import AVFoundation
import UIKit

// An audio-interruption helper whose [unowned self] block is never removed: the first
// interruption after the helper is released runs the block on a freed object and traps.
final class InterruptionHandler: NSObject {
    private var observer: NSObjectProtocol?

    override init() {
        super.init()
        observer = NotificationCenter.default.addObserver(forName: AVAudioSession.interruptionNotification,
                                                          object: nil, queue: .main) { [unowned self] note in
            self.handle(note)
        }
    }

    private func handle(_ note: Notification) {}
}
