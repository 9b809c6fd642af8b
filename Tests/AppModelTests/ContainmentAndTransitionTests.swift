import AppModel
import NotifyBus
import Testing

/// Records every moment each screen reaches, recorded in traces or not, as "Name moment".
final class MomentLog: ScreenPlugin {
    var lines: [String] = []
    func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
        lines.append("\(screen.name) \(moment.rawValue)")
    }
    func take() -> [String] {
        defer { lines = [] }
        return lines
    }
}

@Suite struct ContainmentTests {
    @Test func childrenLoadWithTheirParentAndGetEachAppearanceCallbackAfterIt() throws {
        let h = Harness()
        let log = MomentLog()
        let header = Screen(name: "Header", plugins: [log])
        let feed = Screen(name: "Feed", plugins: [log], children: [header, Screen(name: "List", plugins: [log])])
        try h.app.launch(root: .navigation([Screen(name: "Home", plugins: [log])]))
        _ = h.take()
        _ = log.take()
        try h.app.push(feed)
        #expect(h.take(lifecycleOnly: true) == [
            "Feed init", "Feed push onto Navigation(Home)", "Feed viewDidLoad",
            "Header init", "Header addChild to Feed", "Header viewDidLoad",
            "List init", "List addChild to Feed", "List viewDidLoad",
            "Home viewWillDisappear", "Feed viewWillAppear", "Header viewWillAppear", "List viewWillAppear",
            "Home viewDidDisappear", "Feed viewDidAppear", "Header viewDidAppear", "List viewDidAppear",
        ])
        #expect(log.take().filter { $0.hasSuffix("Window") || $0.hasSuffix("Subviews") } == [
            "Feed didMoveToWindow", "Header didMoveToWindow", "List didMoveToWindow",
            "Feed viewDidLayoutSubviews", "Header viewDidLayoutSubviews", "List viewDidLayoutSubviews",
        ])
        #expect(header.parent === feed)
        #expect(h.app.screen(named: "Header") === header)
        try h.app.pop()
        #expect(h.take(lifecycleOnly: true) == [
            "Feed pop", "Feed viewWillDisappear", "Header viewWillDisappear", "List viewWillDisappear",
            "Home viewWillAppear", "Feed viewDidDisappear", "Header viewDidDisappear", "List viewDidDisappear",
            "Home viewDidAppear",
            "Feed removedFromHierarchy", "Header removedFromHierarchy", "List removedFromHierarchy",
            "Feed deinit", "Header deinit", "List deinit",
        ])
    }

    @Test func aChildAddedToAVisibleParentAppearsAtOnceAndDisappearsWhenRemoved() throws {
        let h = Harness()
        let home = Screen(name: "Home")
        try h.app.launch(root: .screen(home))
        _ = h.take()
        let banner = Screen(name: "Banner")
        try h.app.addChild(banner, to: home)
        #expect(h.take(lifecycleOnly: true) == [
            "Banner init", "Banner addChild to Home", "Banner viewDidLoad", "Banner viewWillAppear", "Banner viewDidAppear",
        ])
        #expect(banner.isInWindow)
        try h.app.removeChild(banner)
        #expect(h.take(lifecycleOnly: true) == [
            "Banner removeChild from Home", "Banner viewWillDisappear", "Banner viewDidDisappear",
            "Banner removedFromHierarchy", "Banner deinit",
        ])
        #expect(home.children.isEmpty)
        #expect(throws: NotifyBusError("Banner is not a child screen")) { try h.app.removeChild(banner) }
    }

    @Test func aChildAddedToACoveredParentAppearsOnlyWithIt() throws {
        let h = Harness()
        let home = Screen(name: "Home")
        try h.app.launch(root: .navigation([home]))
        try h.app.push(Screen(name: "Detail"))
        _ = h.take()
        try h.app.addChild(Screen(name: "Banner"), to: home)
        #expect(h.take(lifecycleOnly: true) == ["Banner init", "Banner addChild to Home", "Banner viewDidLoad"])
        try h.app.pop()
        let lines = h.take(lifecycleOnly: true)
        #expect(lines.contains("Banner viewWillAppear"))
        #expect(lines.firstIndex(of: "Home viewWillAppear")! < lines.firstIndex(of: "Banner viewWillAppear")!)
    }

    @Test func aChildsActionTravelsThroughItsParent() throws {
        let h = Harness()
        let button = Screen(name: "Button")
        let home = Screen(name: "Home", handledActions: ["buy"], children: [button])
        try h.app.launch(root: .navigation([home]))
        _ = h.take()
        #expect(try h.app.sendAction("buy", from: button) === home)
        #expect(h.take() == ["action buy tried Button,Home -> Home"])
    }

    @Test func aRetainedParentKeepsItsChildrenAndAReleasedOneLetsARetainedChildLive() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Feed", children: [Screen(name: "Player", retainedAfterPop: true), Screen(name: "Ad")]))
        _ = h.take()
        try h.app.pop()
        #expect(h.take(lifecycleOnly: true).suffix(5) == [
            "Feed removedFromHierarchy", "Player removedFromHierarchy", "Ad removedFromHierarchy", "Feed deinit", "Ad deinit",
        ])
    }
}

@Suite struct InteractiveTransitionTests {
    @Test func cancelledSwipeBackFollowsThePublishedOrder() throws {
        let h = Harness()
        let log = MomentLog()
        try h.app.launch(root: .navigation([Screen(name: "Home", plugins: [log])]))
        try h.app.push(Screen(name: "Detail", plugins: [log]))
        _ = h.take()
        _ = log.take()
        try h.app.interactivePop(.cancel, duration: 0.3)
        #expect(h.take(lifecycleOnly: true) == [
            "Detail pop interactive", "Detail viewWillDisappear", "Home viewWillAppear", "Detail transitionCancelled",
            "Home viewWillDisappear", "Home viewDidDisappear", "Detail viewWillAppear", "Detail viewDidAppear",
        ])
        // The screen below enters the window while the gesture shows it; the top never left.
        #expect(log.take() == [
            "Detail viewWillDisappear", "Home viewWillAppear", "Home didMoveToWindow",
            "Home viewWillDisappear", "Home viewDidDisappear", "Detail viewWillAppear", "Detail viewDidAppear",
        ])
        #expect(h.app.topLeaf?.name == "Detail")
        try h.app.interactivePop(.complete)
        #expect(h.take(lifecycleOnly: true) == [
            "Detail pop interactive", "Detail viewWillDisappear", "Home viewWillAppear", "Detail viewDidDisappear",
            "Home viewDidAppear", "Detail removedFromHierarchy", "Detail deinit",
        ])
        #expect(throws: NotifyBusError("nothing to pop")) { try h.app.interactivePop(.cancel) }
    }

    @Test func cancelledSwipeTakesTheGesturesTime() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Detail"))
        let before = h.clock.now
        try h.app.interactivePop(.cancel, duration: 0.5)
        #expect(h.clock.now - before == 500_000_000)
    }

    @Test func cancelledDismissOfAFullScreenPresentationShowsThePresenterBriefly() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.present(Screen(name: "Modal"), style: .fullScreen)
        _ = h.take()
        try h.app.interactiveDismiss(.cancel)
        #expect(h.take(lifecycleOnly: true) == [
            "Modal dismiss interactive", "Modal viewWillDisappear", "Home viewWillAppear", "Modal transitionCancelled",
            "Home viewWillDisappear", "Home viewDidDisappear", "Modal viewWillAppear", "Modal viewDidAppear",
        ])
        #expect(h.app.visibleScreens.map(\.name) == ["Modal"])
    }

    @Test func cancelledDismissOfASheetLeavesThePresenterAlone() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.present(Screen(name: "Sheet"), style: .pageSheet)
        _ = h.take()
        try h.app.interactiveDismiss(.cancel)
        #expect(h.take(lifecycleOnly: true) == [
            "Sheet dismiss interactive", "Sheet viewWillDisappear", "Sheet transitionCancelled",
            "Sheet viewWillAppear", "Sheet viewDidAppear",
        ])
        try h.app.interactiveDismiss(.complete)
        #expect(h.take(lifecycleOnly: true) == [
            "Sheet dismiss interactive", "Sheet viewWillDisappear", "Sheet viewDidDisappear",
            "Sheet removedFromHierarchy", "Sheet deinit",
        ])
        #expect(throws: NotifyBusError("nothing presented to dismiss")) { try h.app.interactiveDismiss(.cancel) }
    }
}

@Suite struct ViewMomentTests {
    @Test func didMoveToWindowComesEachTimeTheViewEntersAWindowAndTheFirstLayoutOnce() throws {
        let h = Harness()
        let log = MomentLog()
        try h.app.launch(root: .navigation([Screen(name: "Home", plugins: [log])]))
        #expect(log.take() == [
            "Home init", "Home viewDidLoad", "Home viewWillAppear", "Home didMoveToWindow", "Home viewDidLayoutSubviews",
            "Home viewDidAppear",
        ])
        try h.app.push(Screen(name: "Detail"))
        try h.app.pop()
        #expect(log.take() == [
            "Home viewWillDisappear", "Home viewDidDisappear", "Home viewWillAppear", "Home didMoveToWindow", "Home viewDidAppear",
        ])
        // A sheet leaves its presenter in the window.
        try h.app.present(Screen(name: "Sheet"), style: .pageSheet)
        try h.app.dismiss()
        #expect(log.take().isEmpty)
        // A full-screen presentation takes it out.
        try h.app.present(Screen(name: "Modal"), style: .fullScreen)
        try h.app.dismiss()
        #expect(log.take().filter { $0.hasSuffix("didMoveToWindow") } == ["Home didMoveToWindow"])
    }

    @Test func viewMomentsAreNotRecorded() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home")))
        #expect(!h.take().contains { $0.contains("Window") || $0.contains("Layout") })
        #expect(ScreenMoment.didMoveToWindow.phase == nil)
        #expect(!ScreenMoment.didMoveToWindow.isActivity)
    }
}

@Suite struct TabsUnderAPresentationTests {
    @Test func underASheetTheTabsSwitchWithTheirCallbacks() throws {
        let h = Harness()
        try h.app.launch(root: .tabs([.navigation([Screen(name: "Home")]), .navigation([Screen(name: "Cart")])], selected: 0))
        try h.app.present(Screen(name: "Sheet"), style: .pageSheet)
        _ = h.take()
        try h.app.selectTab(1)
        #expect(h.take(lifecycleOnly: true) == [
            "Cart selectTab tab 1 under a presentation", "Cart viewDidLoad", "Home viewWillDisappear", "Cart viewWillAppear",
            "Home viewDidDisappear", "Cart viewDidAppear",
        ])
        #expect(h.app.visibleScreens.map(\.name) == ["Cart", "Sheet"])
        #expect(h.app.topLeaf?.name == "Sheet")
    }

    @Test func underAFullScreenPresentationTheNewTabAppearsOnDismissal() throws {
        let h = Harness()
        try h.app.launch(root: .tabs([.navigation([Screen(name: "Home")]), .navigation([Screen(name: "Cart")])], selected: 0))
        try h.app.present(Screen(name: "Modal"), style: .fullScreen)
        _ = h.take()
        try h.app.selectTab(1)
        #expect(h.take(lifecycleOnly: true) == ["Cart selectTab tab 1 under a presentation"])
        try h.app.dismiss()
        #expect(h.take(lifecycleOnly: true) == [
            "Modal dismiss", "Cart viewDidLoad", "Modal viewWillDisappear", "Cart viewWillAppear", "Cart viewDidAppear",
            "Modal viewDidDisappear", "Modal removedFromHierarchy", "Modal deinit",
        ])
    }
}
