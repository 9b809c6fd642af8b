public import Foundation

/// A selector observer added through a ``RecordingNotificationCenter``: its target, held weakly,
/// and the Foundation block observer that calls it.
final class SelectorObserver: Sendable {
    let id: UInt64
    let ownerID: UInt64
    let message: String?
    let name: Notification.Name?
    let object: ObjectIdentifier?
    let target: ObjectIdentifier
    private let real = Locked<FoundationObserver?>(nil)

    init(id: UInt64, ownerID: UInt64, message: String?, name: Notification.Name?, object: ObjectIdentifier?,
         target: ObjectIdentifier) {
        self.id = id
        self.ownerID = ownerID
        self.message = message
        self.name = name
        self.object = object
        self.target = target
    }

    func register(_ token: any NSObjectProtocol) { real.withLock { $0 = FoundationObserver(token: token) } }

    /// Foundation's observer, the first time only.
    func take() -> FoundationObserver? {
        real.withLock { real in
            defer { real = nil }
            return real
        }
    }
}

extension RecordingNotificationCenter {
    // MARK: Selector observers

    /// `NotificationCenter`'s `addObserver(_:selector:name:object:)` where there is no Objective-C:
    /// the selector is the target's method, `LoginScreen.keyboardWillShow`, taking the notification.
    ///
    /// As in Foundation, the target is held weakly (a post after it is gone drops the observer
    /// silently), adding the same target and method twice registers it twice, and
    /// `removeObserver(target)` or `removeObserver(target, name:object:)` removes it.
    ///
    /// ```swift
    /// center.addObserver(self, selector: LoginScreen.keyboardWillShow,
    ///                    name: UIResponder.keyboardWillShowNotification, object: nil)
    /// ```
    public func addObserver<Target: AnyObject>(
        _ observer: Target, selector: @escaping @Sendable (Target) -> (Notification) -> Void,
        name: Notification.Name?, object: Any?, file: String = #fileID, line: Int = #line
    ) {
        addSelector(observer, handler: nil, name: name, object: object, callSite: CallSite(file: file, line: line)) {
            target, note in selector(unsafeDowncast(target, to: Target.self))(note)
        }
    }

    /// The form of ``addObserver(_:selector:name:object:file:line:)-(Target,_,_,_,_,_)`` for a
    /// method that takes no argument (`@objc func keyboardWillHide()`).
    public func addObserver<Target: AnyObject>(
        _ observer: Target, selector: @escaping @Sendable (Target) -> () -> Void,
        name: Notification.Name?, object: Any?, file: String = #fileID, line: Int = #line
    ) {
        addSelector(observer, handler: nil, name: name, object: object, callSite: CallSite(file: file, line: line)) {
            target, _ in selector(unsafeDowncast(target, to: Target.self))()
        }
    }

    #if canImport(ObjectiveC)
    /// `NotificationCenter`'s `addObserver(_:selector:name:object:)`, recorded.
    public func addObserver(_ observer: Any, selector: Selector, name: Notification.Name?, object: Any?,
                            file: String = #fileID, line: Int = #line) {
        guard let target = observer as? NSObject else {
            center.addObserver(observer, selector: selector, name: name, object: object)
            return
        }
        let selectorName = NSStringFromSelector(selector)
        addSelector(target, handler: selectorName, name: name, object: object, callSite: CallSite(file: file, line: line)) {
            target, note in _ = (target as? NSObject)?.perform(selector, with: note as NSNotification)
        }
    }
    #endif

    /// Registers a selector observer: a Foundation block observer that calls `call` on the target
    /// while it lives, and drops itself at the first post after it is gone.
    func addSelector(_ target: AnyObject, handler: String?, name: Notification.Name?, object: Any?, callSite: CallSite,
                     call: @escaping @Sendable (AnyObject, Notification) -> Void) {
        let weakTarget = WeakRef(object: target)
        let session = session()
        let message = name.map(Self.message(for:))
        var entry: SelectorObserver?
        if let (bus, tracker) = session {
            let ownerID = ownerID(of: target, bus: bus)
            let id = bus.recordObserverAdded(message: message, owner: target, sender: Self.object(object), kind: .selector,
                                             handler: handler, callSite: callSite)
            entry = SelectorObserver(id: id, ownerID: ownerID, message: message, name: name,
                                     object: PostTracker.identity(object), target: ObjectIdentifier(target))
            tracker.join(id, name: name, object: object)
        } else {
            entry = SelectorObserver(id: 0, ownerID: 0, message: message, name: name,
                                     object: PostTracker.identity(object), target: ObjectIdentifier(target))
        }
        let selector = entry!
        let center = self.center
        let token = center.addObserver(forName: name, object: object, queue: nil) { [weak self] note in
            let target = weakTarget.object
            guard let (bus, tracker) = session else {
                if let target { call(target, note) } else if let real = selector.take() { center.removeObserver(real.token) }
                return
            }
            let post = tracker.post(of: note, for: selector.id) {
                Self.recordForeignPost(note, bus: bus, tracker: tracker)
            }.post
            guard let target else {
                // Gone: Foundation drops a deallocated target's observer at its next post, silently.
                if let real = selector.take() { center.removeObserver(real.token) }
                tracker.leave(selector.id)
                self?.selectors.withLock { _ = $0.removeValue(forKey: selector.id) }
                bus.recordReleased(ownerID: selector.ownerID)
                bus.record(.skipped(post: post, observer: selector.id))
                bus.record(.observerRemoved(observer: selector.id, message: selector.message, owner: selector.ownerID,
                                            reason: .ownerGone, callSite: nil))
                return
            }
            bus.record(.delivered(post: post, observer: selector.id))
            CurrentPost.with(bus: bus, post: post) { call(target, note) }
        }
        selector.register(token)
        if session != nil { selectors.withLock { $0[selector.id] = selector } } else {
            unrecordedSelectors.withLock { $0.append(selector) }
        }
    }

    /// Removes the selector observers of `target` (of `name` and `object`, when given) from the
    /// real center, and returns those that were recorded.
    func removeSelectors(of target: AnyObject, name: Notification.Name?, object: Any?) -> [SelectorObserver] {
        let key = ObjectIdentifier(target), objectKey = PostTracker.identity(object)
        func matches(_ selector: SelectorObserver) -> Bool {
            selector.target == key && (name == nil || selector.name == name)
                && (object == nil || selector.object == objectKey)
        }
        let removed = selectors.withLock { selectors in
            let matching = selectors.values.filter(matches).sorted { $0.id < $1.id }
            for selector in matching { selectors[selector.id] = nil }
            return matching
        }
        let unrecorded = unrecordedSelectors.withLock { all in
            let matching = all.filter(matches)
            all.removeAll(where: matches)
            return matching
        }
        for selector in removed + unrecorded {
            if let real = selector.take() { center.removeObserver(real.token) }
        }
        if let tracker = session()?.tracker { for selector in removed { tracker.leave(selector.id) } }
        return removed
    }
}
