// libFuzzer target: Foundation notifications with arbitrary `userInfo`, through
// `FoundationBridge` onto a bus that records into a real trace file.
//
// The input is read as a little program: which notification, then entries of
// (key, value) where the value's type and bits come from the input, so doubles
// cover NaN, infinities, subnormals and huge values, integers cover the whole range.
// A malformed `userInfo` must be rejected (recorded as `bridgeRejected`), a valid one
// posted; either way every event must reach the trace file.
import Foundation
import NotifyBus
import TraceStore

private let names: [Notification.Name] = [
    FoundationBridge.keyboardWillShow, FoundationBridge.keyboardDidShow, FoundationBridge.keyboardWillHide,
    FoundationBridge.keyboardDidHide, FoundationBridge.keyboardWillChangeFrame, FoundationBridge.keyboardDidChangeFrame,
    FoundationBridge.willResignActive, FoundationBridge.didBecomeActive, FoundationBridge.didEnterBackground,
    FoundationBridge.willEnterForeground, FoundationBridge.orientationDidChange,
]

private let keys = [
    FoundationBridge.frameBeginKey, FoundationBridge.frameEndKey, FoundationBridge.curveKey,
    FoundationBridge.durationKey, FoundationBridge.orientationKey,
]

/// Reads values off the input; past its end everything is zero.
private struct Input {
    let bytes: UnsafeBufferPointer<UInt8>
    var offset = 0

    var isAtEnd: Bool { offset >= bytes.count }

    mutating func byte() -> UInt8 {
        defer { offset += 1 }
        return offset < bytes.count ? bytes[offset] : 0
    }

    mutating func uint64() -> UInt64 {
        (0..<8).reduce(0) { value, shift in value | UInt64(byte()) << (8 * UInt64(shift)) }
    }

    mutating func double() -> Double { Double(bitPattern: uint64()) }

    mutating func string() -> String {
        let length = Int(byte() % 32)
        return String(decoding: (0..<length).map { _ in byte() }, as: UTF8.self)
    }

    mutating func rect() -> Rect { Rect(x: double(), y: double(), width: double(), height: double()) }

    mutating func value() -> Any {
        switch byte() % 11 {
        case 0: return double()
        case 1: return Int(bitPattern: UInt(uint64()))
        case 2: return NSNumber(value: double())
        case 3: return NSNumber(value: Int64(bitPattern: uint64()))
        case 4: return NSNumber(value: byte() & 1 == 1)
        case 5: return rect()
        case 6:
            let r = rect()
            return CGRect(x: CGFloat(r.x), y: CGFloat(r.y), width: CGFloat(r.width), height: CGFloat(r.height))
        case 7: return string()
        case 8: return Double(Int8(bitPattern: byte()))  // small whole numbers: valid curves and orientations
        case 9: return NSNull()
        default: return [double()]
        }
    }
}

/// One recorder for the whole run: opening a trace per input would cost more than the bridge.
private let path = NSTemporaryDirectory() + "notifybus-fuzz-bridge-\(ProcessInfo.processInfo.processIdentifier).trace"
private let recorder: TraceRecorder = {
    for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
    do {
        return try TraceRecorder(path: path, session: SessionInfo(name: "fuzz-bridge"))
    } catch {
        fatalError("cannot open \(path): \(error)")
    }
}()
private let bus = Bus(sink: recorder)
private let center = NotificationCenter()
private let bridge = FoundationBridge(center: center, bus: bus)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBridge(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start else { return 0 }
    var input = Input(bytes: UnsafeBufferPointer(start: start, count: count))
    while !input.isAtEnd {
        let name = names[Int(input.byte()) % names.count]
        var info: [AnyHashable: Any] = [:]
        for _ in 0..<Int(input.byte() % 8) {
            let selector = input.byte()
            let key = selector < 224 ? keys[Int(selector) % keys.count] : input.string()
            info[key] = input.value()
        }
        center.post(name: name, object: nil, userInfo: input.byte() & 1 == 0 ? info : nil)
    }
    do {
        try recorder.flush()
    } catch {
        // A failed batch loses every event of the session after it: the bridge let through
        // a message the recorder cannot store.
        fatalError("the recorder failed after bridged notifications: \(error)")
    }
    let counts = recorder.counts
    guard counts.recorded == counts.committed else {
        fatalError("\(counts.recorded) events recorded, \(counts.committed) committed")
    }
    // Keep the file small: start a new one when it grows.
    withExtendedLifetime(bridge) {}
    return 0
}
