// Records a steady stream of events into the trace named by the first
// argument, printing "committed N" after each flush, until it is killed.
// Used by the crash-safety tests, which SIGKILL it mid-stream.
import Foundation
import NotifyBus
import TraceStore

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--replace-walk-body-while-running" {
    // Misuse of the walk that calls its body unretained (RowWalk): replacing the body from
    // inside it would free the running closure. It must stop at its precondition, not run on.
    let reader = try TraceReader(path: CommandLine.arguments[2])
    reader.walk.body = { _ in
        reader.walk.body = nil
        return true
    }
    let statement = try reader.db.prepare("SELECT seq FROM events WHERE \(RowWalk.name)(seq)")
    while try statement.step() {}
    FileHandle.standardOutput.write(Data("ran on\n".utf8))
    exit(0)
}

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--step-a-walk-inside-its-body" {
    // Misuse of the walk and the folds it runs, whose state is not checked for exclusivity at run
    // time (RowWalk, TraceStats, TraceVerification, LeakAnalyzer): a body that steps another walking
    // statement on the same connection is called again while it runs. A debug build must stop.
    let reader = try TraceReader(path: CommandLine.arguments[2])
    let inner = try reader.db.prepare("SELECT seq FROM events WHERE \(RowWalk.name)(seq)")
    reader.walk.body = { _ in
        _ = try? inner.step()
        return true
    }
    let statement = try reader.db.prepare("SELECT seq FROM events WHERE \(RowWalk.name)(seq)")
    while try statement.step() {}
    FileHandle.standardOutput.write(Data("ran on\n".utf8))
    exit(0)
}

/// An object an observer captures `unowned`, as `[unowned self]` does.
final class Target: @unchecked Sendable {
    // @unchecked: touched by the one posting thread only.
    var value = 0
}

/// What the crashing observer needs: the object it captures and how many posts it heard.
final class CrashState: @unchecked Sendable {
    // @unchecked: touched by the one posting thread only.
    var holder: Target? = Target()
    var delivered = 0
}

if CommandLine.arguments.count == 5 && CommandLine.arguments[1] == "--crash-in-delivery",
   let posts = Int(CommandLine.arguments[3]), posts > 0 {
    // Dies inside the handler of the post numbered `posts`: by SIGKILL (`kill`) or by a Swift trap,
    // an `[unowned]` capture of an object already gone (`trap`). Everything up to and including that
    // delivery must be in the trace afterwards.
    let how = CommandLine.arguments[2]
    let recorder = try TraceRecorder(path: CommandLine.arguments[4], session: SessionInfo(name: "crash-in-delivery"),
                                     bufferCapacity: 4_096)
    let bus = Bus(sink: recorder)
    let state = CrashState()
    // No strong reference but `holder`: the block's is unowned.
    let token = bus.observe(KeyboardWillShow.self) { [unowned target = state.holder!] _ in
        state.delivered += 1
        guard state.delivered == posts else { return }
        if how == "kill" {
            kill(getpid(), SIGKILL)
            while true { pause() }
        }
        // The object the block captured unowned is released, and the block reads it: a trap.
        state.holder = nil
        target.value += 1
    }
    var i = 0
    while true {
        i += 1
        bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: Double(i % 800), width: 390, height: 336),
                                  curve: .keyboard, duration: 0.25))
    }
    withExtendedLifetime(token) {}
}

if CommandLine.arguments.count == 4 && CommandLine.arguments[1] == "--two-threads-crash",
   let posts = Int(CommandLine.arguments[2]), posts > 0 {
    // Two buses recording into one recorder, each posted to by its own thread; the first bus's
    // observer SIGKILLs the process in its delivery of its post numbered `posts`, while the other
    // thread goes on recording. The trace must number both threads' events in one gapless sequence.
    let recorder = try TraceRecorder(path: CommandLine.arguments[3], session: SessionInfo(name: "two-threads-crash"),
                                     bufferCapacity: 4_096)
    let first = Bus(sink: recorder), second = Bus(sink: recorder)
    let state = CrashState()
    let firstToken = first.observe(KeyboardWillShow.self) { _ in
        state.delivered += 1
        guard state.delivered == posts else { return }
        kill(getpid(), SIGKILL)
        while true { pause() }
    }
    let secondToken = second.observe(KeyboardDidShow.self) { _ in }
    let frame = Rect(x: 0, y: 508, width: 390, height: 336)
    // The first thread starts once the other has posted: both record when the kill comes.
    let started = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
        second.post(KeyboardDidShow(beginFrame: .zero, endFrame: frame, curve: .keyboard, duration: 0.25))
        started.signal()
        while true { second.post(KeyboardDidShow(beginFrame: .zero, endFrame: frame, curve: .keyboard, duration: 0.25)) }
    }
    started.wait()
    while true { first.post(KeyboardWillShow(beginFrame: .zero, endFrame: frame, curve: .keyboard, duration: 0.25)) }
    withExtendedLifetime((firstToken, secondToken)) {}
}

let path = CommandLine.arguments[1]
let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "crash-child"), bufferCapacity: 4_096)
let bus = Bus(sink: recorder)

final class Screen: TraceLabeled {
    let traceLabel = "Login"
}
let screen = Screen()
let token = bus.observe(KeyboardWillShow.self, owner: screen) { _ in }
var i = 0
while true {
    i += 1
    bus.post(KeyboardWillShow(beginFrame: .zero, endFrame: Rect(x: 0, y: Double(i % 800), width: 390, height: 336),
                              curve: .keyboard, duration: 0.25))
    if i % 997 == 0 {
        try recorder.flush()
        FileHandle.standardOutput.write(Data("committed \(recorder.counts.committed)\n".utf8))
    }
}
