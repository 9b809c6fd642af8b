import AppModel
import NotifyBus
import Testing

@Suite struct OrientationModelTests {
    func orientationPosts(_ h: Harness) -> [OrientationDidChange] {
        h.sink.events.compactMap { event in
            if case .posted(_, let message, _, _, _) = event.kind { message as? OrientationDidChange } else { nil }
        }
    }

    @Test func deviceRotationMovesTheInterfaceWhereSupported() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "A", supportedOrientations: .allButUpsideDown)))
        try h.app.rotate(to: .landscapeLeft)
        #expect(h.app.interfaceOrientation == .landscapeRight)
        #expect(orientationPosts(h) == [OrientationDidChange(device: .landscapeLeft, interface: .landscapeRight)])
    }

    @Test func portraitOnlyScreenKeepsItsInterfaceWhenTheDeviceTurns() throws {
        let h = Harness()
        try h.app.launch(root: .screen(Screen(name: "A", supportedOrientations: .portrait)))
        try h.app.rotate(to: .landscapeRight)
        #expect(h.app.deviceOrientation == .landscapeRight)
        #expect(h.app.interfaceOrientation == .portrait)
        try h.app.rotate(to: .portraitUpsideDown)
        #expect(h.app.interfaceOrientation == .portrait)
    }

    /// Seed 003: A supports everything but prefers portrait, B is landscape only.
    @Test func pushingALandscapeOnlyScreenForcesItsPreferredOrientationAndPoppingBackDoesNotRotate() throws {
        let h = Harness()
        let a = Screen(name: "A", supportedOrientations: .allButUpsideDown, preferredOrientation: .portrait)
        try h.app.launch(root: .navigation([a]))
        _ = h.take()
        try h.app.push(Screen(name: "B", supportedOrientations: .landscape, preferredOrientation: .landscapeRight))
        #expect(h.app.interfaceOrientation == .landscapeRight)
        #expect(h.app.deviceOrientation == .landscapeLeft)
        #expect(h.take() == [
            "B init", "B push onto Navigation(A)", "Application forceOrientation interface landscapeRight for B",
            "post orientationDidChange", "B viewDidLoad", "A viewWillDisappear", "B viewWillAppear",
            "A viewDidDisappear", "B viewDidAppear",
        ])
        try h.app.pop()
        #expect(h.app.interfaceOrientation == .landscapeRight, "A supports landscape: no rotation back")
        #expect(!h.take().contains { $0.contains("rotate") })
    }

    @Test func poppingBackToAPortraitOnlyScreenForcesPortrait() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "A", supportedOrientations: .portrait)]))
        try h.app.push(Screen(name: "B", supportedOrientations: .landscape, preferredOrientation: .landscapeLeft))
        #expect(h.app.interfaceOrientation == .landscapeLeft)
        try h.app.pop()
        #expect(h.app.interfaceOrientation == .portrait)
        #expect(orientationPosts(h).map(\.interface) == [.landscapeLeft, .portrait])
    }

    @Test func orientationLockPluginLocksToThePreferredOrientation() throws {
        let h = Harness()
        try h.app.launch(root: .navigation([Screen(name: "A")]))
        let player = Screen(name: "Player", preferredOrientation: .landscapeLeft, plugins: [OrientationLockPlugin()])
        try h.app.push(player)
        #expect(h.app.interfaceOrientation == .landscapeLeft)
        try h.app.rotate(to: .portrait)
        #expect(h.app.interfaceOrientation == .landscapeLeft)
    }
}
