import Foundation
import NotifyBus
import Synchronization
import Testing

/// The screen of issue 12, as a UIKit screen is written: `@MainActor`, mutating its
/// own state from the bus's handlers. That this file compiles in Swift 6 mode is the test.
@MainActor final class LoginViewController {
    var formOffset = 0.0
    var token: ObservationToken?
    var asyncToken: ObservationToken?
    var offsets: [Double] = []

    /// Issue 12's snippet, unchanged: a keyboard message is a `MainActorMessage`, so the
    /// unannotated closure is `@MainActor` and may mutate the screen.
    func viewDidLoad(bus: Bus) {
        token = bus.observe(KeyboardWillShow.self, owner: self) { [weak self] note in
            self?.formOffset = note.endFrame.height
            self?.offsets.append(note.endFrame.height)
        }
    }

    /// The `async` form needs no annotation: the closure inherits the class's isolation.
    func observeAsynchronously(bus: Bus) {
        asyncToken = bus.observe(KeyboardWillHide.self, owner: self) { [weak self] note async in
            self?.formOffset = note.endFrame.height
        }
    }
}

private func keyboard(height: Double) -> KeyboardWillShow {
    KeyboardWillShow(beginFrame: Rect(x: 0, y: 844, width: 390, height: 0),
                     endFrame: Rect(x: 0, y: 844 - height, width: 390, height: height), curve: .keyboard, duration: 0.25)
}

/// Posts `message` on a new thread, not the main one, and waits for the post to return.
private func postFromBackground<M: BusMessage>(_ bus: Bus, _ message: M) {
    let done = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        precondition(!Thread.isMainThread)
        bus.post(message)
        done.signal()
    }
    done.wait()
}

private let mainQueueKey: DispatchSpecificKey<Bool> = {
    let key = DispatchSpecificKey<Bool>()
    DispatchQueue.main.setSpecific(key: key, value: true)
    return key
}()

/// Whether the caller runs on the main dispatch queue, the main actor's executor
/// (on Linux, test runners hand that queue from the main thread to another).
private func isOnMainQueue() -> Bool { DispatchQueue.getSpecific(key: mainQueueKey) == true }

/// Waits on the main actor until `condition` holds, yielding so that queued work runs.
@MainActor
private func until(_ condition: @MainActor () -> Bool) async {
    while !condition() { await Task.yield() }
}

@Suite struct IsolationTests {
    @MainActor @Test func aMainActorScreenObservesThroughTheBus() {
        let bus = Bus()
        let screen = LoginViewController()
        screen.viewDidLoad(bus: bus)
        bus.post(keyboard(height: 336))
        // Posted on the main actor: delivered before `post` returned.
        #expect(screen.formOffset == 336)
        screen.token = nil
        bus.post(keyboard(height: 200))
        #expect(screen.formOffset == 336)
        #expect(bus.observerCount == 0)
    }

    @MainActor @Test func postedOnTheMainActorItRunsInRegistrationOrderAmongOtherObservers() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let order = Log<String>()
        let first = bus.observe(Ping.self) { _ in order.append("sendable 1") }
        let second = bus.observe(Ping.self) { @MainActor _ in
            MainActor.assertIsolated()
            order.append("main actor")
        }
        let third = bus.observe(Ping.self) { _ in order.append("sendable 2") }
        bus.post(Ping(n: 1))
        #expect(order.all == ["sendable 1", "main actor", "sendable 2"])
        #expect(sink.events.map(describe).suffix(4) == [
            "post 1 Ping parent:- app", "deliver 1->1", "deliver 1->2", "deliver 1->3",
        ])
        _ = (first, second, third)
    }

    @MainActor @Test func aHandlerSeesTheMainActorAsItsIsolation() {
        let bus = Bus()
        let seen = Log<Bool>()
        let token = bus.observe(Ping.self) { @MainActor _ in
            MainActor.preconditionIsolated()
            seen.append(#isolation === MainActor.shared)
        }
        bus.post(Ping(n: 1))
        #expect(seen.all == [true])
        _ = token
    }

    @MainActor @Test func aPostFromABackgroundThreadReachesTheObserverOnTheMainActorLater() async {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let screen = LoginViewController()
        screen.viewDidLoad(bus: bus)
        let onMain = Log<Bool>()
        let probe = bus.observe(KeyboardWillShow.self) { @MainActor _ in
            MainActor.preconditionIsolated()
            onMain.append(isOnMainQueue())
        }
        postFromBackground(bus, keyboard(height: 336))
        // The post has returned; the main actor has not run since, so nothing was delivered.
        #expect(screen.formOffset == 0)
        await until { screen.formOffset == 336 && onMain.all.count == 1 }
        #expect(onMain.all == [true])
        let lines = sink.events.map(describe)
        let post = lines.firstIndex(of: "post 1 keyboardWillShow parent:- app")
        let enqueued = lines.firstIndex(of: "enqueue 1->1"), delivered = lines.firstIndex(of: "deliver 1->1")
        #expect(post != nil && enqueued != nil && delivered != nil)
        if let post, let enqueued, let delivered {
            #expect(post < enqueued && enqueued < delivered)
            // Both queued deliveries precede both runs: the post finished before the main actor ran.
            #expect(lines.firstIndex(of: "enqueue 1->2")! < delivered)
            #expect(sink.events[enqueued].time <= sink.events[delivered].time)
        }
        _ = probe
    }

    @MainActor @Test func queuedDeliveriesRunInTheOrderTheyWereQueued() async {
        let bus = Bus()
        let seen = Log<Int>()
        let a = bus.observe(Ping.self) { @MainActor ping in seen.append(ping.n) }
        let b = bus.observe(Pong.self) { @MainActor pong in seen.append(-pong.n) }
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for n in 1...50 {
                bus.post(Ping(n: n))
                bus.post(Pong(n: n))
            }
            done.signal()
        }
        done.wait()
        await until { seen.all.count == 100 }
        #expect(seen.all == (1...50).flatMap { [$0, -$0] })
        _ = (a, b)
    }

    @MainActor @Test func anObserverRemovedBeforeItsTurnIsNotCalled() async {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let seen = Log<String>()
        var token: ObservationToken? = bus.observe(Ping.self) { @MainActor _ in seen.append("removed one") }
        let later = bus.observe(Pong.self) { @MainActor _ in seen.append("later") }
        postFromBackground(bus, Ping(n: 1))
        postFromBackground(bus, Pong(n: 1))
        token = nil
        await until { !seen.all.isEmpty }
        #expect(seen.all == ["later"])
        let lines = sink.events.map(describe)
        #expect(lines.contains("enqueue 1->1"))
        #expect(lines.contains("remove 1 Ping tokenReleased"))
        #expect(!lines.contains("deliver 1->1"))
        _ = (token, later)
    }

    @MainActor @Test func anOwnerGoneBeforeTheQueuedDeliveryIsSkippedAsATokenIs() async {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let seen = Log<String>()
        var screen: LoginViewController? = LoginViewController()
        screen!.viewDidLoad(bus: bus)
        let token = screen!.token!
        let later = bus.observe(Pong.self) { @MainActor _ in seen.append("later") }
        postFromBackground(bus, keyboard(height: 336))
        postFromBackground(bus, Pong(n: 1))
        screen = nil
        await until { !seen.all.isEmpty }
        let lines = sink.events.map(describe)
        #expect(lines.contains("enqueue 1->1"))
        #expect(lines.contains("skip 1->1"))
        #expect(lines.contains("remove 1 keyboardWillShow ownerGone"))
        #expect(bus.observerCount == 1)
        _ = (token, later, screen)
    }

    @MainActor @Test func anAsyncHandlerWrittenInAMainActorClassRunsOnTheMainActor() async {
        let bus = Bus()
        let screen = LoginViewController()
        screen.observeAsynchronously(bus: bus)
        postFromBackground(bus, KeyboardWillHide(beginFrame: .zero, endFrame: Rect(x: 0, y: 0, width: 390, height: 12),
                                                 curve: .keyboard, duration: 0.25))
        await until { screen.formOffset == 12 }
        #expect(screen.formOffset == 12)
    }

    @Test func asyncHandlersReceiveEveryPostInOrderPerObserver() async {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let first = Log<Int>(), second = Log<Int>()
        let a = bus.observe(Ping.self) { ping async in
            if ping.n % 7 == 0 { await Task.yield() }  // a slow message must not be overtaken
            first.append(ping.n)
        }
        let b = bus.observe(Ping.self) { ping async in second.append(ping.n) }
        BusConcurrencyTests.onThreads(1) { _ in for n in 0..<200 { bus.post(Ping(n: n)) } }
        while first.all.count < 200 || second.all.count < 200 { await Task.yield() }
        #expect(first.all == Array(0..<200))
        #expect(second.all == Array(0..<200))
        let kinds = sink.events.map(describe)
        #expect(kinds.filter { $0.hasPrefix("enqueue") }.count == 400)
        #expect(kinds.filter { $0.hasPrefix("deliver") }.count == 400)
        // Each delivery follows its own queueing.
        for n in 1...200 {
            #expect(kinds.firstIndex(of: "enqueue \(n)->1")! < kinds.firstIndex(of: "deliver \(n)->1")!)
        }
        _ = (a, b)
    }

    @Test func releasingAnAsyncObserversTokenStopsItsDeliveries() async {
        let bus = Bus()
        let seen = Log<Int>()
        let gate = Mutex(false), started = Mutex(false)
        var token: ObservationToken? = bus.observe(Ping.self) { ping async in
            started.withLock { $0 = true }
            while !gate.withLock({ $0 }) { await Task.yield() }
            seen.append(ping.n)
        }
        bus.post(Ping(n: 1))  // starts, and waits at the gate
        bus.post(Ping(n: 2))  // queued behind it
        while !started.withLock({ $0 }) { await Task.yield() }
        token = nil
        gate.withLock { $0 = true }
        while seen.all.isEmpty { await Task.yield() }
        // The second would run right after the first; give its task the chance to.
        for _ in 0..<100 { await Task.yield() }
        #expect(seen.all == [1])
        #expect(bus.observerCount == 0)
        _ = token
    }
}
