import AppModel
import NotifyBus
import TestSupport
import Testing

@Suite struct LifecycleOrderTests {
    @Test func launchLoadsShowsThenBecomesActive() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        #expect(h.take() == [
            "Application launch", "Home init", "Home setRoot", "Home viewDidLoad", "Home viewWillAppear",
            "Home viewDidAppear", "post didBecomeActive",
        ])
        #expect(h.app.state == .active)
    }

    @Test func pushFollowsUIKitOrder() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        _ = h.take()
        try h.app.push(Screen(name: "Login"))
        #expect(h.take() == [
            "Login init", "Login push onto Navigation(Home)", "Login viewDidLoad", "Home viewWillDisappear",
            "Login viewWillAppear", "Home viewDidDisappear", "Login viewDidAppear",
        ])
    }

    @Test func popIsTheMirrorAndReleasesThePoppedScreen() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Login"))
        _ = h.take()
        try h.app.pop()
        #expect(h.take() == [
            "Login pop", "Login viewWillDisappear", "Home viewWillAppear", "Login viewDidDisappear",
            "Home viewDidAppear", "Login removedFromHierarchy", "Login deinit",
        ])
    }

    @Test func retainedScreenLeavesButIsNotReleased() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Login", retainedAfterPop: true))
        _ = h.take()
        try h.app.pop()
        #expect(h.take().suffix(2) == ["Home viewDidAppear", "Login removedFromHierarchy"])
    }

    @Test func popToRootShowsTheRootAndReleasesEveryScreenAbove() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "A")]))
        try h.app.push(Screen(name: "B"))
        try h.app.push(Screen(name: "C"))
        _ = h.take()
        try h.app.popToRoot()
        #expect(h.take() == [
            "C pop to root", "C viewWillDisappear", "A viewWillAppear", "C viewDidDisappear", "A viewDidAppear",
            "C removedFromHierarchy", "C deinit", "B removedFromHierarchy", "B deinit",
        ])
    }

    @Test func fullScreenPresentationMakesThePresenterDisappearAppearingScreenFirst() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        _ = h.take()
        try h.app.present(Screen(name: "Login"), style: .fullScreen)
        #expect(h.take() == [
            "Login init", "Login present fullScreen", "Login viewDidLoad", "Home viewWillDisappear",
            "Login viewWillAppear", "Login viewDidAppear", "Home viewDidDisappear",
        ])
        try h.app.dismiss()
        #expect(h.take() == [
            "Login dismiss", "Login viewWillDisappear", "Home viewWillAppear", "Home viewDidAppear",
            "Login viewDidDisappear", "Login removedFromHierarchy", "Login deinit",
        ])
    }

    @Test func formatOneFullScreenPresentationCompletesInThePushOrder() throws {
        let h = Harness()
        h.app.fidelity = .v1
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        _ = h.take()
        try h.app.present(Screen(name: "Login"), style: .fullScreen)
        #expect(h.take() == [
            "Login init", "Login present fullScreen", "Login viewDidLoad", "Home viewWillDisappear",
            "Login viewWillAppear", "Home viewDidDisappear", "Login viewDidAppear",
        ])
        try h.app.dismiss()
        #expect(h.take() == [
            "Login dismiss", "Login viewWillDisappear", "Home viewWillAppear", "Login viewDidDisappear",
            "Home viewDidAppear", "Login removedFromHierarchy", "Login deinit",
        ])
    }

    @Test func pageSheetLeavesThePresenterOnScreen() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        _ = h.take()
        try h.app.present(Screen(name: "Sheet"), style: .pageSheet)
        #expect(h.take() == [
            "Sheet init", "Sheet present pageSheet", "Sheet viewDidLoad", "Sheet viewWillAppear", "Sheet viewDidAppear",
        ])
        #expect(h.app.visibleScreens.map(\.name) == ["Home", "Sheet"])
        try h.app.dismiss()
        #expect(h.take() == [
            "Sheet dismiss", "Sheet viewWillDisappear", "Sheet viewDidDisappear",
            "Sheet removedFromHierarchy", "Sheet deinit",
        ])
    }

    @Test func customTransitionTakesItsDuration() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home")))
        let before = h.clock.now
        try h.app.present(Screen(name: "Card"), style: .custom, duration: 0.4)
        #expect(h.clock.now - before == 400_000_000)
        let events = h.sink.events
        let willAppear = events.last { if case .lifecycle(_, .viewWillAppear, _) = $0.kind { true } else { false } }
        let didAppear = events.last { if case .lifecycle(_, .viewDidAppear, _) = $0.kind { true } else { false } }
        #expect(didAppear!.time - willAppear!.time == 400_000_000)
    }

    @Test func pushInsideAPresentationUsesThePresentedStack() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.present(Screen(name: "Flow"), style: .fullScreen)
        _ = h.take()
        try h.app.push(Screen(name: "Step2"))
        #expect(h.take().contains("Step2 push onto Navigation(Flow)"))
        try h.app.dismiss()
        #expect(h.take().suffix(4) == ["Step2 removedFromHierarchy", "Step2 deinit", "Flow removedFromHierarchy", "Flow deinit"])
    }

    @Test func tabSwitchLoadsTheNewTabOnFirstShow() throws {
        let h = Harness()
        try h.app.launch(root: .tabs([.navigation([Screen(name: "Home")]), .navigation([Screen(name: "Scan")])], selected: 0))
        #expect(h.take() == [
            "Application launch", "Home init", "Scan init", "Home setRoot", "Scan setRoot",
            "Home viewDidLoad", "Home viewWillAppear", "Home viewDidAppear", "post didBecomeActive",
        ])
        try h.app.selectTab(1)
        #expect(h.take() == [
            "Scan selectTab tab 1", "Scan viewDidLoad", "Home viewWillDisappear", "Scan viewWillAppear",
            "Home viewDidDisappear", "Scan viewDidAppear",
        ])
        try h.app.selectTab(0)
        #expect(h.take() == [
            "Home selectTab tab 0", "Scan viewWillDisappear", "Home viewWillAppear", "Scan viewDidDisappear", "Home viewDidAppear",
        ])
    }

    @Test func mainScreenAppearsFirstAndContainsEverything() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]), main: Screen(name: "Main"))
        #expect(h.take(lifecycleOnly: true) == [
            "Application launch", "Main init", "Home init", "Main setRoot main", "Home setRoot",
            "Main viewDidLoad", "Home viewDidLoad", "Main viewWillAppear", "Home viewWillAppear",
            "Main viewDidAppear", "Home viewDidAppear",
        ])
    }

    @Test func backgroundForegroundAndInterruptionPostInTheRealOrder() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home")))
        _ = h.take()
        try h.app.enterBackground()
        #expect(h.take() == ["post willResignActive", "post didEnterBackground"])
        #expect(h.app.state == .background)
        try h.app.enterForeground()
        #expect(h.take() == ["post willEnterForeground", "post didBecomeActive"])
        try h.app.interrupt()
        #expect(h.take() == ["post willResignActive", "post didBecomeActive"])
        #expect(h.app.state == .active)
    }

    @MainActor @Test func keyboardShowAndHidePostFramesCurveAndDuration() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home")))
        _ = h.take()
        let log = Log<any KeyboardMessage>()
        let tokens = [
            h.bus.observe(KeyboardWillShow.self) { log.append($0) },
            h.bus.observe(KeyboardDidHide.self) { log.append($0) },
        ]
        try h.app.showKeyboard(height: 300)
        #expect(h.take().filter { $0.hasPrefix("post") } == [
            "post keyboardWillChangeFrame", "post keyboardWillShow", "post keyboardDidChangeFrame", "post keyboardDidShow",
        ])
        try h.app.hideKeyboard()
        #expect(h.take().filter { $0.hasPrefix("post") } == [
            "post keyboardWillChangeFrame", "post keyboardWillHide", "post keyboardDidChangeFrame", "post keyboardDidHide",
        ])
        let messages = log.all
        #expect(messages.count == 2)
        #expect(messages[0].beginFrame == Rect(x: 0, y: 844, width: 390, height: 300))
        #expect(messages[0].endFrame == Rect(x: 0, y: 544, width: 390, height: 300))
        #expect(messages[0].curve == .keyboard)
        #expect(messages[0].duration == 0.25)
        #expect(messages[1].endFrame == Rect(x: 0, y: 844, width: 390, height: 300))
        _ = tokens
    }

    @Test func impossibleOperationsThrowAndChangeNothing() throws {
        let h = Harness()
        #expect(throws: NotifyBusError("the app is not launched")) { try h.app.pop() }
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        _ = h.take()
        #expect(throws: NotifyBusError("nothing to pop")) { try h.app.pop() }
        #expect(throws: NotifyBusError("nothing presented to dismiss")) { try h.app.dismiss() }
        #expect(throws: NotifyBusError("the keyboard is not shown")) { try h.app.hideKeyboard() }
        #expect(throws: NotifyBusError("the app is not in the background")) { try h.app.enterForeground() }
        #expect(throws: NotifyBusError("the root has no tabs")) { try h.app.selectTab(1) }
        try h.app.enterBackground()
        #expect(throws: NotifyBusError("the app is already in the background")) { try h.app.enterBackground() }
        #expect(throws: NotifyBusError("the app is not active")) { try h.app.interrupt() }
        #expect(h.take() == ["post willResignActive", "post didEnterBackground"])
    }
}
