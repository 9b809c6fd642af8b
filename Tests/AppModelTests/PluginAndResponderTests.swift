import AppModel
import NotifyBus
import Testing

@Suite struct PluginAndResponderTests {
    @Test func keyboardPluginObservesOnlyWhileOnScreen() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Login", plugins: [KeyboardObserverPlugin()]))
        #expect(h.take().suffix(3) == ["Login viewDidAppear", "add keyboardWillShow Login", "add keyboardWillHide Login"])
        try h.app.pop()
        #expect(h.take().prefix(4) == [
            "Login pop", "Login viewWillDisappear", "remove keyboardWillShow Login", "remove keyboardWillHide Login",
        ])
        try h.app.showKeyboard()
        #expect(!h.take().contains { $0.hasPrefix("deliver") })
        #expect(h.bus.observerCount == 0)
    }

    @Test func activityPluginDeliversActivityMomentsToOtherPlugins() throws {
        final class Moments: ScreenPlugin {
            var seen: [ScreenMoment] = []
            func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) { seen.append(moment) }
        }
        let h = Harness()
        let moments = Moments()
        try h.app.launch(root: .screen(Screen(name: "Home", plugins: [ActivityObserverPlugin(), moments])))
        try h.app.enterBackground()
        try h.app.enterForeground()
        #expect(moments.seen == [
            .`init`, .viewDidLoad, .viewWillAppear, .didMoveToWindow, .viewDidLayoutSubviews, .viewDidAppear,
            .didBecomeActive, .willResignActive, .didEnterBackground, .willEnterForeground, .didBecomeActive,
        ])
    }

    /// Seed 000's bug: the keyboard observer added on become-active is never removed
    /// because a popped screen gets no resign-active.
    @Test func seed000KeyboardObserverOutlivesItsPoppedScreen() throws {
        final class Seed000Keyboard: ScreenPlugin {
            func screen(_ screen: Screen, reached moment: ScreenMoment, in app: AppModel) {
                switch moment {
                case .didBecomeActive: app.addObserver(KeyboardWillShow.self, of: screen) { _ in }
                case .willResignActive: app.removeObservers(named: KeyboardWillShow.name, of: screen)
                default: break
                }
            }
        }
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.push(Screen(name: "Login", plugins: [ActivityObserverPlugin(), Seed000Keyboard()]))
        try h.app.interrupt()
        _ = h.take()
        try h.app.pop()
        let popped = h.take()
        #expect(popped.contains("Login deinit"))
        #expect(!popped.contains("remove keyboardWillShow Login"))
        try h.app.showKeyboard()
        let after = h.take()
        #expect(after.contains { $0.hasPrefix("skip keyboardWillShow") })
        #expect(after.contains("remove keyboardWillShow Login ownerGone"))
    }

    @Test func actionTravelsUpToTheMainScreen() throws {
        let h = Harness()
        let main = Screen(name: "Main", handledActions: ["didTapScan"])
        try h.app.launch(root: .tabs([.navigation([Screen(name: "Home")]), .navigation([Screen(name: "Scan")])], selected: 0),
                         main: main)
        _ = h.take()
        let home = try #require(h.app.screen(named: "Home"))
        let handler = try h.app.sendAction("didTapScan", from: home)
        #expect(handler === main)
        #expect(h.take() == ["action didTapScan tried Home,Navigation(Home),Tabs,Main -> Main"])
    }

    @Test func firstResponderThatHandlesWinsAndUnhandledIsRecorded() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home", handledActions: ["save"])]))
        try h.app.push(Screen(name: "Edit", handledActions: ["save"]))
        _ = h.take()
        let edit = try #require(h.app.screen(named: "Edit"))
        #expect(try h.app.sendAction("save", from: edit)?.name == "Edit")
        #expect(try h.app.sendAction("share", from: edit) == nil)
        #expect(h.take() == [
            "action save tried Edit -> Edit",
            "action share tried Edit,Navigation(Home),Application -> nobody",
        ])
    }

    @Test func presentedScreenChainGoesThroughItsPresenter() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home", handledActions: ["close"])]))
        try h.app.present(Screen(name: "Sheet"), style: .pageSheet)
        _ = h.take()
        let sheet = try #require(h.app.screen(named: "Sheet"))
        #expect(try h.app.sendAction("close", from: sheet)?.name == "Home")
        #expect(h.take() == ["action close tried Sheet,Navigation(Sheet),Home -> Home"])
    }
}
