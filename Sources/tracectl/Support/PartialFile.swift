import Foundation
import TraceStore

/// Refuses an output path that ``writeOutputFile(_:what:inputs:_:)`` would refuse, before a command
/// does its work: an input, or a directory.
func checkOutputPath(_ path: String, inputs: [String]) throws {
    _ = try reportingErrors { try TraceFiles.output(path, inputs: inputs) }
}

/// Writes an output file (a page, a document, a baseline) through `body`.
///
/// A regular file is written into a partial file beside it and moved into place when complete: a
/// failed write never leaves a file that looks finished, and nothing is held whole. A symbolic
/// link is followed, and the file it names replaced; a device or a pipe (`/dev/null`, a FIFO) is
/// written to as it is. An output that names an input, or a directory, is refused before anything
/// is written (``TraceFiles/output(_:inputs:)``).
///
/// - Parameters:
///   - what: What is being written, for the one-line error ("the timeline", "the export").
///   - inputs: The files the command reads, which the output must not replace.
/// - Throws: ``Exit/usage`` (64) for an output that is an input, ``Exit/cannotCreate`` (73) when
///   the file cannot be made or moved; a write that fails exits 74 after one line, leaving no
///   partial file.
func writeOutputFile(_ path: String, what: String, inputs: [String], _ body: (Output) -> Void) throws {
    let destination = try reportingErrors { try TraceFiles.output(path, inputs: inputs) }
    switch destination {
    case .stream(let target):
        guard let handle = FileHandle(forWritingAtPath: target) else {
            diagnose("\(path): cannot write \(what) (\(String(cString: strerror(errno))))")
            throw Exit.cannotCreate
        }
        let out = Output(handle) { reason in
            exitWritingFailed("\(path): cannot write \(what) (\(reason))")
        }
        body(out)
        out.flush()
        try? handle.close()
    case .replace(let target):
        let partial = TraceFiles.partialPath(of: target)
        TraceFiles.removeAbandonedPartials(of: target)
        // Interrupted, the run leaves no partial file behind, as `record` does not either.
        let interrupts = RemovingOnInterrupt(partial)
        defer { interrupts.cancel() }
        guard FileManager.default.createFile(atPath: partial, contents: nil),
              let handle = FileHandle(forWritingAtPath: partial) else {
            diagnose("\(path): cannot write \(what) (cannot create \(partial))")
            throw Exit.cannotCreate
        }
        let out = Output(handle) { reason in
            unlink(partial)
            exitWritingFailed("\(path): cannot write \(what) (\(reason))")
        }
        body(out)
        out.flush()
        try? handle.close()
        guard rename(partial, target) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(partial)
            diagnose("\(path): cannot write \(what) (\(reason))")
            throw Exit.cannotCreate
        }
    }
}

/// While it lives, SIGINT, SIGTERM and SIGHUP remove a partial output (and a trace's SQLite side
/// files) before the process ends as the signal would have ended it. A SIGKILL cannot be caught:
/// the next run writing the same file removes what it left (``TraceFiles/removeAbandonedPartials(of:)``).
final class RemovingOnInterrupt {
    private static let signals = [SIGINT, SIGTERM, SIGHUP]
    private var sources: [any DispatchSourceSignal] = []
    /// The signals taken over, each with the action it had before.
    private var taken: [(number: Int32, previous: __sighandler_t?)] = []

    init(_ partial: String, also other: String? = nil) {
        for number in Self.signals {
            // Handled on a queue, not in the signal handler: removing files is then safe.
            let previous = signal(number, SIG_IGN)
            // A signal the caller ignores stays ignored (`nohup tracectl record …`).
            if Self.isIgnore(previous) { continue }
            taken.append((number, previous))
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                TraceFiles.remove(at: partial)
                if let other { TraceFiles.remove(at: other) }
                // Ends the process as the signal ends it: default action, unblocked on this thread
                // (a queue's threads, and a child of a process that blocks it, block it), raised here.
                signal(number, SIG_DFL)
                var only = sigset_t()
                sigemptyset(&only)
                sigaddset(&only, number)
                pthread_sigmask(SIG_UNBLOCK, &only, nil)
                raise(number)
            }
            source.resume()
            sources.append(source)
        }
    }

    private static func isIgnore(_ handler: __sighandler_t?) -> Bool {
        unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }

    /// Signals act as before again.
    func cancel() {
        for source in sources { source.cancel() }
        for (number, previous) in taken { signal(number, previous) }
    }
}
