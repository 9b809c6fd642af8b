import Foundation
@testable import NotifyBus
import Testing

/// `MainActorCheck` caches each thread's "am I the main thread" answer: the cached answer must be
/// the thread's, on every thread, however often it is asked.
@Suite struct MainActorCheckTests {
    @Test func eachThreadKeepsItsOwnAnswer() async {
        // Behind a lock: four threads writing their own element of one array still modify the
        // array together (ThreadSanitizer reported it).
        let answers = Locked<[[Bool]]>(Array(repeating: [], count: 4))
        let done = DispatchGroup()
        for index in 0..<4 {
            done.enter()
            Thread.detachNewThread {
                let values = (0..<3).map { _ in MainActorCheck.isMainThread }
                    + [Thread.isMainThread, MainActorCheck.isCurrent]
                answers.withLock { $0[index] = values }
                done.leave()
            }
        }
        done.wait()
        for values in answers.withLock({ $0 }) { #expect(values == [false, false, false, false, false]) }
    }

    @MainActor @Test func theMainActorIsCurrentOnTheMainActor() {
        // Swift Testing runs this on the main actor: the main thread, or the thread draining the
        // main queue once the main thread handed it over.
        #expect(MainActorCheck.isCurrent)
        #expect(MainActorCheck.isMainThread == Thread.isMainThread)
        #expect(MainActorCheck.isMainThread == Thread.isMainThread)
    }
}
