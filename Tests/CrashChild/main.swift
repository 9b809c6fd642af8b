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
