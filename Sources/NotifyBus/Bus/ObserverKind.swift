/// The three kinds of observer real code registers, each with its own removal
/// and capture rules (see `NOTIFICATIONCENTER.md`).
public enum ObserverKind: String, Sendable, CaseIterable, Codable {
    /// A typed token, like SF-0011's `ObservationToken`: removed by the token,
    /// or when its last copy is released. ``Bus/observe(_:sender:owner:file:line:_:)``.
    case token
    /// A block, like `addObserver(forName:object:queue:using:)`: the center keeps it
    /// until its ``BlockObservation`` is removed. Removals by owner do not reach it.
    case block
    /// A target and action, like `addObserver(_:selector:name:object:)`: the target
    /// is held weakly and removed by owner or by owner and name.
    case selector
}

/// How a block observer's closure holds the object it belongs to.
public enum BlockCapture: String, Sendable, CaseIterable, Codable {
    /// `{ self.… }`: the center keeps the owner alive until the block is removed,
    /// a cycle through the center.
    case strong
    /// `{ [weak self] in … }`: the block keeps running after the owner is gone,
    /// doing nothing useful.
    case weak
    /// `{ [unowned self] in … }`: the first run after the owner is gone traps.
    case unowned
}

/// What a post does with a selector observer whose target was deallocated.
public enum SelectorSemantics: String, Sendable, CaseIterable, Codable {
    /// iOS 9 / macOS 10.11 and later: the center drops the observer silently.
    case modern
    /// Before iOS 9: the post messages the deallocated instance, a crash.
    case legacy
}

/// Why a delivery would have crashed a real app.
public enum TrapReason: String, Sendable, CaseIterable, Codable {
    /// A block capturing its owner `unowned` ran after the owner was gone.
    case unownedCapture
    /// A selector observer's target was deallocated, under ``SelectorSemantics/legacy``.
    case deallocatedTarget
}
