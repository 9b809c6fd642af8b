// libFuzzer target: arbitrary bytes (seeded with real traces, so mostly mutated
// SQLite files) as a trace file.
//
// Everything `tracectl` does on a trace it is given — open and validate it, list
// its sessions, stream and fold its events, find leaks, verify it — must either
// work or throw `TraceStoreError`: never trap, never read out of bounds.
import Foundation
import NotifyBus
import TraceStore

/// Where each input is written; one file per fuzzing process.
private let path = NSTemporaryDirectory() + "notifybus-fuzz-\(ProcessInfo.processInfo.processIdentifier).trace"

/// Sessions read per input, to keep each input fast.
private let maximumSessions = 4

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTraceReader(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let data = start.map { Data(bytes: $0, count: count) } ?? Data()
    for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) }
    guard FileManager.default.createFile(atPath: path, contents: data) else { fatalError("cannot write \(path)") }
    defer { for suffix in ["", "-wal", "-shm", "-journal"] { unlink(path + suffix) } }
    do {
        let reader = try TraceReader(path: path)
        for session in try reader.sessions().prefix(maximumSessions) {
            var state = TraceState()
            var events = 0
            try reader.forEachEvent(session: session.id) { event in
                state.apply(event)
                events += 1
                return true
            }
            _ = state.liveObservers
            _ = state.hierarchy
            for owner in state.owners.keys { _ = state.location(of: owner) }
            let findings = try LeakAnalyzer.analyze(reader, session: session.id)
            for finding in findings { _ = finding.fingerprint }
            _ = try reader.state(session: session.id, at: UInt64(events / 2))
        }
        _ = try TraceVerification.run(reader)
    } catch {
        // Not a trace, damaged, unsupported: reported as errors, which is right.
    }
    return 0
}
