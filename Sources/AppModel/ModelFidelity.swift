import NotifyBus

/// How closely the model follows UIKit where scenario files of format 1 were recorded with
/// an older approximation. A format-1 file runs with ``v1`` so that it records unchanged.
public enum ModelFidelity: Int, Sendable, CaseIterable, Comparable {
    /// As format-1 scenario files record: a full-screen presentation completes in the push
    /// order (the covered screen's `viewDidDisappear` first), dismissing a sheet never
    /// rotates, and a rotation leaves the keyboard's frame alone.
    case v1 = 1
    /// iOS 13 and later: a full-screen presentation and its dismissal complete with the
    /// screen that appears (`viewDidAppear`) before the one that goes (`viewDidDisappear`);
    /// a dismissal that reveals a screen not supporting the current orientation forces
    /// one it supports, whatever the presentation's style; a rotation with the keyboard up
    /// moves the keyboard and posts its change-frame messages.
    case current = 2

    public static func < (lhs: ModelFidelity, rhs: ModelFidelity) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension AppModel {
    /// The longest interval one operation may take (a wait, a transition, a gesture), in
    /// seconds: 1,000,000 (11.6 days).
    public static let longestInterval = 1_000_000.0
    /// How far the app's clock may run: 100 years, in nanoseconds. Trace times are signed
    /// 64-bit nanoseconds (292 years); a scenario that would pass this is refused.
    public static let clockLimit: UInt64 = 100 * 365 * 86_400 * 1_000_000_000

    /// Checks an interval an operation is about to take.
    func checkInterval(_ seconds: Double, _ what: String) throws(NotifyBusError) {
        guard seconds.isFinite else { throw NotifyBusError("\(what) must be a finite number of seconds") }
        guard seconds >= 0 else { throw NotifyBusError("\(what) cannot be negative") }
        guard seconds <= Self.longestInterval else {
            throw NotifyBusError("\(what) must be at most \(Int(Self.longestInterval)) seconds")
        }
        guard clock.now <= Self.clockLimit - UInt64((seconds * 1_000_000_000).rounded()) else {
            throw NotifyBusError("the app's clock would pass 100 years")
        }
    }

    /// After the interface turned with the keyboard up: the keyboard keeps its height,
    /// takes the new width and sits at the new bottom; will-change-frame, then (after the
    /// animation) did-change-frame.
    func keyboardFollowsRotation() {
        guard fidelity >= .current, let begin = keyboardFrame else { return }
        let bounds = screenBounds
        let end = Rect(x: 0, y: bounds.height - begin.height, width: bounds.width, height: begin.height)
        guard end != begin else { return }
        let duration = keyboardDuration
        bus.post(KeyboardWillChangeFrame(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration),
                 sender: nil, origin: .stimulus)
        clock.advance(bySeconds: duration)
        bus.post(KeyboardDidChangeFrame(beginFrame: begin, endFrame: end, curve: .keyboard, duration: duration),
                 sender: nil, origin: .stimulus)
        keyboardFrame = end
    }
}
