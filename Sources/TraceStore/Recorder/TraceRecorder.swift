import Foundation
public import NotifyBus
/// A ``TraceSink`` that appends a bus's events to an SQLite trace file.
///
/// The posting thread never touches the disk: events go into a bounded
/// in-memory buffer, and one writer thread drains it in large transactions
/// with a reused prepared statement (WAL, `synchronous=NORMAL`). When the
/// buffer is full the poster waits rather than dropping events. Secondary
/// indexes are built by ``close()``, not while recording.
///
/// ```swift
/// let recorder = try TraceRecorder(path: "session.trace", session: SessionInfo(name: "login"))
/// let bus = Bus(sink: recorder)
/// let other = Bus(sink: recorder)   // one log: the recorder's session numbers both
/// // ... run the app model ...
/// try recorder.close()
/// ```
///
/// A process killed mid-session leaves a valid file holding every event that
/// was committed; its session reads as not ended.
///
/// An event that cannot be written (a hand-made duplicate `seq`) costs only
/// itself: the rest of its batch and every later event are written, and
/// ``flush()`` and ``close()`` throw its error. A failure of the file itself
/// (disk full, I/O error) stops the recording, and they throw that. A payload
/// JSON cannot hold is still written (non-finite numbers as strings).
public final class TraceRecorder: TraceSink, DirectTraceSink, Sendable {
    /// The trace file.
    public let path: String
    /// The session's id in the file's `sessions` table.
    public let sessionID: Int64
    /// Numbers the events of every bus and center recording here, in one sequence.
    public let recordingSession = RecordingSession()
    private let queue: EventQueue
    private let writer: WriterHandle
    /// How ``close()`` ended, once it ran: a second call reports the same.
    private let closing = Locked<Result<Void, TraceStoreError>?>(nil)

    /// Opens (or creates) `path` and starts a new session in it.
    ///
    /// - Parameters:
    ///   - path: The trace file. An existing trace gains a session; any other file is refused.
    ///   - session: The session's name, app and scenario.
    ///   - bufferCapacity: Events held in memory before posters wait.
    ///   - journaled: Whether each event also goes into the crash-durable journal beside the trace
    ///     before its handler runs (docs/TRACE_JOURNAL.md). `false` spares the posting thread that
    ///     write (BENCHMARKS.md) and loses the events not yet committed if the process dies.
    /// - Throws: ``TraceStoreError`` when the file cannot be opened or is not a trace.
    public convenience init(path: String, session: SessionInfo, bufferCapacity: Int = 65_536,
                            journaled: Bool = true) throws(TraceStoreError) {
        try self.init(path: path, session: session, bufferCapacity: bufferCapacity, buildsIndexes: true, journaled: journaled)
    }

    /// Opens (or creates) `path` and starts a new session in it; with `buildsIndexes` false,
    /// ``close()`` ends the session without building the secondary indexes: for a file that
    /// is read once in `seq` order and removed (a replay's own trace), where building them
    /// would be a sort of every event for nothing.
    package init(path: String, session: SessionInfo, bufferCapacity: Int = 65_536,
                 buildsIndexes: Bool, journaled: Bool? = nil) throws(TraceStoreError) {
        self.path = path
        let db = try Database(path: path, mode: .create)
        let writer: TraceWriter
        do {
            writer = try TraceWriter(db: db, info: session, buildsIndexes: buildsIndexes,
                                     journalEvents: journaled ?? buildsIndexes ? bufferCapacity : nil)
        } catch {
            if case .sqlite(let code) = error.kind, code == .notADatabase || code == .corrupt {
                throw TraceStoreError(.notATrace, "\(path): not an SQLite database, or damaged (\(error.message))")
            }
            throw error
        }
        self.sessionID = writer.session
        self.queue = EventQueue(capacity: bufferCapacity, journal: writer.journal, session: recordingSession)
        self.writer = WriterHandle(writer)
        let queue = self.queue, handle = self.writer
        let thread = Thread {
            // Named from the thread itself: Foundation on Linux names the system thread only then.
            Thread.current.name = Self.writerName
            Self.yieldToTheApp()
            // One array for every batch: the writer allocates nothing per batch once it has grown.
            var batch: [TraceEvent] = []
            while queue.takeBatch(into: &batch) {
                do throws(TraceStoreError) {
                    try handle.writer.write(batch)
                    queue.committed(batch.count)
                } catch where Self.concernsTheFile(error) {
                    // Disk full, I/O error, locked, damaged: nothing more can be written. Stop, and say so.
                    queue.fail(error)
                } catch {
                    // The transaction rolled back over one event that cannot be written (a duplicate seq,
                    // a value too big): it must cost only itself. Write the batch again one event at a time.
                    // A failure of the file while retrying stops the writer as above.
                    var written = 0
                    var fileFailure: TraceStoreError?
                    for event in batch {
                        do throws(TraceStoreError) {
                            try handle.writer.write([event])
                            written += 1
                        } catch where Self.concernsTheFile(error) {
                            fileFailure = error
                            break
                        } catch {}
                    }
                    if let fileFailure {
                        queue.committed(written)
                        queue.fail(fileFailure)
                    } else {
                        queue.lost(error, written: written, of: batch.count)
                    }
                }
            }
            queue.writerFinished()
        }
        thread.name = Self.writerName
        #if canImport(Darwin)
        thread.qualityOfService = .utility
        #endif
        thread.start()
    }

    /// The writer thread's name, as debuggers, `top -H` and `/proc/PID/task/TID/comm` show it: at most
    /// 15 bytes, or Linux keeps none.
    package static let writerName = "trace writer"

    /// Makes the calling thread, the writer, background work that never preempts the app's threads
    /// when it wakes: on Linux `SCHED_BATCH` (no wake-up preemption, its fair share of the CPU
    /// otherwise), on Darwin the thread's quality of service, set before it starts.
    ///
    /// Woken by a poster, the writer used to be placed on the poster's core and preempt it there, a
    /// context switch or two per 16 000 posts: about 50 ns per event of the posting thread's wall
    /// time in `notifybus-bench recording` on 2 cores (BENCHMARKS.md).
    private static func yieldToTheApp() {
        #if os(Linux)
        // SCHED_BATCH: <sched.h> defines it only under _GNU_SOURCE, which Glibc's module map leaves out.
        let schedBatch: Int32 = 3
        var parameters = sched_param()
        parameters.sched_priority = 0
        // Best effort: a failure leaves the writer as it was, and costs nothing else.
        _ = pthread_setschedparam(pthread_self(), schedBatch, &parameters)
        #endif
    }

    deinit {
        try? close()
    }

    /// Whether a failed write is the file's (nothing more can go in) rather than one event's.
    private static func concernsTheFile(_ error: TraceStoreError) -> Bool {
        if error.isBusy || error.isIOFailure || error.isInvalidInput { return true }
        switch error.kind {
        case .sqlite(.readOnly), .sqlite(.cannotOpen), .sqlite(.permission), .sqlite(.noMemory), .sqlite(.internal),
             .sqlite(.lockProtocol), .sqlite(.abort), .sqlite(.interrupted):
            return true
        default:
            return false
        }
    }

    /// Queues one event; waits only if the buffer is full.
    ///
    /// The session ends at ``close()``: events recorded after it (an app model
    /// tearing down, say) are not part of the session and are ignored. Buses do not
    /// call it: they hand their events over field by field under the session's lock,
    /// which this call takes for itself. So it must not be called with that lock held:
    /// not from a sink's `record(_:)` whose `recordingSession` is this recorder's (a tee
    /// sharing the session), which would wait on itself.
    public func record(_ event: TraceEvent) {
        queue.append(event)
    }

    package func recordDelivery(_ kind: DeliveryEventKind, seq: UInt64, time: UInt64, post: UInt64, observer: UInt64,
                                held: borrowing HeldSessionLock) {
        queue.appendDelivery(kind, seq: seq, time: time, post: post, observer: observer, held: held)
    }

    package func recordPost(seq: UInt64, time: UInt64, post: UInt64, message: consuming any BusMessage, sender: UInt64?,
                            parent: UInt64?, origin: PostOrigin, held: borrowing HeldSessionLock) {
        queue.appendPost(seq: seq, time: time, post: post, message: message, sender: sender, parent: parent,
                         origin: origin, held: held)
    }

    package func record(_ event: consuming TraceEvent, held: borrowing HeldSessionLock) {
        queue.append(event, held: held)
    }

    /// Returns once every event recorded before the call is committed to the file, or lost.
    ///
    /// - Throws: The writer's first error, if any event could not be written: the trace
    ///   lacks those events, though it holds the others.
    public func flush() throws(TraceStoreError) {
        try queue.flush()
    }

    /// Flushes, ends the session, builds the indexes and closes the file.
    ///
    /// - Throws: The first error of the writer thread (the events it concerns are missing from the
    ///   file, every other one is there), or the error that kept the session from ending.
    ///
    /// Calling it again does nothing more: it returns, or throws the same error, as the first call did,
    /// so that a failed finish cannot be hidden by a later `close()` (a `defer`, `deinit`).
    public func close() throws(TraceStoreError) {
        let queue = self.queue, writer = self.writer
        let outcome = closing.withLock { outcome in
            if let outcome { return outcome }
            let result = Result { () throws(TraceStoreError) in
                queue.close()
                // Finish the session even after a lost event, so that the file holds all the others,
                // ended and indexed; then report the first failure.
                let failure = queue.failure
                do throws(TraceStoreError) {
                    try writer.writer.finish(lastSeq: queue.lastSeq, endedAt: Date())
                } catch {
                    throw failure ?? error
                }
                if let failure { throw failure }
            }
            outcome = result
            return result
        }
        try outcome.get()
    }

    /// Events recorded, and events committed to the file, so far.
    public var counts: (recorded: UInt64, committed: UInt64) {
        let counts = queue.counts
        return (counts.enqueued, counts.committed)
    }
}

/// The writer and its connection, handed from the creating thread to the writer thread.
private final class WriterHandle: @unchecked Sendable {
    // @unchecked: used by one thread at a time — the writer thread until it
    // signals `writerFinished`, then the thread in `close()` that waited for that.
    let writer: TraceWriter
    init(_ writer: TraceWriter) { self.writer = writer }
}
