import AppModel
import NotifyBus
import TestSupport
import Testing

@MainActor @Suite struct ModelFidelityTests {
    @Test func dismissingASheetForcesAnOrientationThePresenterSupports() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home", supportedOrientations: .portrait)]))
        try h.app.present(Screen(name: "Video", supportedOrientations: .all), style: .pageSheet)
        try h.app.rotate(to: .landscapeLeft)
        #expect(h.app.interfaceOrientation == .landscapeRight)
        _ = h.take()
        try h.app.dismiss()
        #expect(h.app.interfaceOrientation == .portrait)
        #expect(h.take(lifecycleOnly: true).prefix(2) == ["Video dismiss", "Application forceOrientation interface portrait for Home"])
    }

    @Test func formatOneDismissalOfASheetLeavesTheInterfaceTurned() throws {
        let h = Harness()
        h.app.fidelity = .v1
        try h.app.launch(root: .navigation([Screen(name: "Home", supportedOrientations: .portrait)]))
        try h.app.present(Screen(name: "Video", supportedOrientations: .all), style: .pageSheet)
        try h.app.rotate(to: .landscapeLeft)
        try h.app.dismiss()
        #expect(h.app.interfaceOrientation == .landscapeRight)
    }

    @Test func dismissingToAScreenThatSupportsTheOrientationDoesNotRotate() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.present(Screen(name: "Video"), style: .pageSheet)
        try h.app.rotate(to: .landscapeLeft)
        _ = h.take()
        try h.app.dismiss()
        #expect(!h.take().contains { $0.contains("rotate") })
        #expect(h.app.interfaceOrientation == .landscapeRight)
    }

    @Test func aRotationWithTheKeyboardUpMovesItAndPostsChangeFrame() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home")))
        try h.app.showKeyboard(height: 300)
        let log = Log<any KeyboardMessage>()
        let tokens = [
            h.bus.observe(KeyboardWillChangeFrame.self) { log.append($0) },
            h.bus.observe(KeyboardDidChangeFrame.self) { log.append($0) },
        ]
        _ = h.take()
        let before = h.clock.now
        try h.app.rotate(to: .landscapeLeft)
        #expect(h.take().filter { $0.hasPrefix("post") } == [
            "post orientationDidChange", "post keyboardWillChangeFrame", "post keyboardDidChangeFrame",
        ])
        let messages = log.all
        #expect(messages.map(\.beginFrame) == Array(repeating: Rect(x: 0, y: 544, width: 390, height: 300), count: 2))
        #expect(messages.map(\.endFrame) == Array(repeating: Rect(x: 0, y: 90, width: 844, height: 300), count: 2))
        #expect(h.app.keyboardFrame == Rect(x: 0, y: 90, width: 844, height: 300))
        #expect(h.clock.now - before == 250_000_000)
        // Hiding now starts from the landscape frame.
        try h.app.hideKeyboard()
        #expect(log.all.last?.endFrame == Rect(x: 0, y: 390, width: 844, height: 300))
        _ = tokens
    }

    @Test func aRotationTheInterfaceDoesNotFollowLeavesTheKeyboard() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "Home", supportedOrientations: .portrait)))
        try h.app.showKeyboard()
        _ = h.take()
        try h.app.rotate(to: .landscapeLeft)
        #expect(h.take().filter { $0.hasPrefix("post") } == ["post orientationDidChange"])
    }

    @Test func aForcedRotationMovesTheKeyboardToo() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "Home")]))
        try h.app.showKeyboard()
        _ = h.take()
        try h.app.push(Screen(name: "Player", supportedOrientations: .landscape, preferredOrientation: .landscapeRight))
        #expect(h.take().filter { $0.hasPrefix("post") } == [
            "post orientationDidChange", "post keyboardWillChangeFrame", "post keyboardDidChangeFrame",
        ])
        #expect(h.app.keyboardFrame?.width == 844)
    }

    @Test func formatOneRotationLeavesTheKeyboardFrame() throws {
        let h = Harness()
        h.app.fidelity = .v1
        try h.app.launch(root: .screen(Screen(name: "Home")))
        try h.app.showKeyboard()
        _ = h.take()
        try h.app.rotate(to: .landscapeLeft)
        #expect(h.take().filter { $0.hasPrefix("post") } == ["post orientationDidChange"])
        #expect(h.app.keyboardFrame?.width == 390)
    }
}
