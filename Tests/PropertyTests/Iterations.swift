import Foundation

/// How many random cases each property test runs: a few dozen by default so that
/// `swift test` stays fast; `NOTIFYBUS_PROPERTY_ITERATIONS=N` runs N of each (a soak).
func iterations(default count: Int) -> Int {
    guard let text = ProcessInfo.processInfo.environment["NOTIFYBUS_PROPERTY_ITERATIONS"] else { return count }
    guard let value = Int(text), value > 0 else {
        fatalError("NOTIFYBUS_PROPERTY_ITERATIONS must be a positive whole number, not '\(text)'")
    }
    return value
}
