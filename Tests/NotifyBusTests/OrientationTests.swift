import NotifyBus
import Testing

@Suite struct OrientationTests {
    @Test(arguments: [
        (DeviceOrientation.portrait, InterfaceOrientation.portrait),
        (.portraitUpsideDown, .portraitUpsideDown),
        (.landscapeLeft, .landscapeRight),
        (.landscapeRight, .landscapeLeft),
    ])
    func deviceLandscapeIsTheMirrorOfInterfaceLandscape(device: DeviceOrientation, interface: InterfaceOrientation) {
        #expect(device.interfaceOrientation == interface)
        #expect(interface.deviceOrientation == device)
    }

    @Test func flatDeviceHasNoInterfaceOrientation() {
        #expect(DeviceOrientation.faceUp.interfaceOrientation == nil)
        #expect(DeviceOrientation.unknown.interfaceOrientation == nil)
    }

    @Test func masksSupportAndMiss() {
        #expect(InterfaceOrientationMask.landscape.supports(.landscapeLeft))
        #expect(InterfaceOrientationMask.landscape.misses(.portrait))
        #expect(InterfaceOrientationMask.allButUpsideDown.misses(.portraitUpsideDown))
        #expect(InterfaceOrientationMask.all.supports(.portraitUpsideDown))
        #expect(InterfaceOrientationMask(.portrait) == .portrait)
        // UIKit's raw values, so masks written by iOS code mean the same here.
        #expect(InterfaceOrientationMask.allButUpsideDown.rawValue == 26)
        #expect(InterfaceOrientationMask.all.rawValue == 30)
    }
}
