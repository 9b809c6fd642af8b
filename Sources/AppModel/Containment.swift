public import NotifyBus

extension AppModel {
    /// Embeds `child` in `parent` (`addChild(_:)`, `view.addSubview(child.view)`,
    /// `didMove(toParent:)`).
    ///
    /// The child is created (`init`) and recorded as `addChild`; when the parent's view is
    /// loaded the child's view loads, and when the parent's view is in a window the child
    /// appears at once: `viewWillAppear`, `didMoveToWindow`, its first layout,
    /// `viewDidAppear`. Otherwise it loads with its parent and appears with it: each
    /// appearance callback reaches the parent first, then its children.
    public func addChild(_ child: Screen, to parent: Screen) throws(NotifyBusError) {
        guard child.parent == nil, !parent.withDescendants.contains(where: { $0 === child }) else {
            throw NotifyBusError("\(child.name) is already a child")
        }
        guard screen(named: parent.name) === parent else { throw NotifyBusError("\(parent.name) is not in the hierarchy") }
        guard parent.isViewLoaded else {
            parent.childrenToEmbed.append(child)
            return
        }
        embed(child, in: parent)
        guard parent.isInWindow else { return }
        forward(.viewWillAppear, to: child)
        enterWindow([child])
        forward(.viewDidAppear, to: child)
    }

    /// Removes `child` from its parent (`willMove(toParent: nil)`,
    /// `view.removeFromSuperview()`, `removeFromParent()`): it disappears if it was on
    /// screen, leaves the hierarchy, and is released unless retained.
    public func removeChild(_ child: Screen) throws(NotifyBusError) {
        guard let parent = child.parent else { throw NotifyBusError("\(child.name) is not a child screen") }
        record(.removeChild, on: child, detail: "from \(parent.name)")
        if child.isInWindow {
            forward(.viewWillDisappear, to: child)
            forward(.viewDidDisappear, to: child)
        }
        parent.children.removeAll { $0 === child }
        child.parent = nil
        leave([child])
    }

    /// The children `screen` embeds as its view loads, in order.
    func embedPendingChildren(of screen: Screen) {
        let pending = screen.childrenToEmbed
        screen.childrenToEmbed = []
        for child in pending { embed(child, in: screen) }
    }

    private func embed(_ child: Screen, in parent: Screen) {
        introduce(child)
        record(.addChild, on: child, detail: "to \(parent.name)")
        parent.children.append(child)
        child.parent = parent
        // Adding the child's view as a subview loads it.
        if !child.isViewLoaded { deliver(.viewDidLoad, to: child) }
    }
}
