// Records the example app (Examples/ExistingApp): real-world NotificationCenter mistakes and their
// fixes, written against Foundation's API and recorded by one typealias line (docs/RECORDING.md).
//
//   swift run RecordExistingApp [TRACE] [--pattern NAME [--fixed]]
//   swift run tracectl leaks TRACE
//
// Without --pattern, every pattern and its fix, each in a process of its own (an [unowned self]
// block left registered on the default center would crash the next one), one session each.
import ExistingApp
import Foundation
import NotifyBus
import TraceStore

func fail(_ message: String, code: Int32) -> Never {
    FileHandle.standardError.write(Data("RecordExistingApp: \(message)\n".utf8))
    exit(code)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var pattern: RealWorldPattern?
var fixed = false
var path = "record-existing-app.trace"
while let argument = arguments.first {
    arguments.removeFirst()
    switch argument {
    case "--pattern":
        guard let name = arguments.first else { fail("--pattern needs a name", code: 64) }
        arguments.removeFirst()
        guard let named = RealWorldPattern(rawValue: name) else {
            fail("no pattern \(name); the patterns: \(RealWorldPattern.allCases.map(\.rawValue).joined(separator: ", "))",
                 code: 64)
        }
        pattern = named
    case "--fixed": fixed = true
    default: path = argument
    }
}

guard let pattern else {
    // Each pattern and its fix in a child process, appending its session to the trace.
    for each in RealWorldPattern.allCases {
        for variant in [false, true] {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: CommandLine.arguments[0])
            child.arguments = [path, "--pattern", each.rawValue] + (variant ? ["--fixed"] : [])
            do { try child.run() } catch { fail("cannot run \(CommandLine.arguments[0]): \(error)", code: 70) }
            child.waitUntilExit()
            guard child.terminationStatus == 0 else { fail("\(each.rawValue) failed", code: 70) }
        }
    }
    exit(0)
}

let name = pattern.rawValue + (fixed ? " (fixed)" : "")
let recorder: TraceRecorder
do {
    recorder = try TraceRecorder(path: path, session: SessionInfo(name: name, app: "ExistingApp"))
} catch {
    fail("\(path): \(error)", code: 73)
}
let bus = Bus(sink: recorder)
RecordingNotificationCenter.record(into: bus)
MainActor.assumeIsolated { pattern.run(fixed: fixed) }
RecordingNotificationCenter.stopRecording()
bus.sweepReleasedOwners()
do {
    try recorder.close()
    let findings = try LeakAnalyzer.analyze(TraceReader(path: path), session: recorder.sessionID)
    print("\(name): \(findings.count) findings (session \(recorder.sessionID) of \(path))")
    for finding in findings {
        print("  \(finding.rule.rawValue)  \(finding.message ?? "every name")  \(finding.ownerLocation ?? finding.owner ?? "no owner")"
            + "  \(finding.callSite)")
    }
} catch {
    fail("\(path): \(error)", code: 74)
}
