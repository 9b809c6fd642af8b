import Foundation
import Testing
import NotifyBus
@testable import TraceStore

/// `sessionStarted` and `sessionEnded` carry the session clock's time, and every time is stored as
/// the non-negative integer `docs/TRACE_FORMAT.md` describes, whatever the clock reads.
@Suite struct SessionTimeTests {
    /// Records a session on `clock`: an observer, `posts` posts a second apart, then the end.
    func record(at path: String, clock: ManualClock, posts: Int = 3) throws -> TraceRecorder {
        try recordOpenSample(at: path, name: "times", posts: posts, clock: clock, step: 1)
    }

    func events(_ path: String) throws -> [RecordedEvent] {
        let reader = try TraceReader(path: path)
        var events: [RecordedEvent] = []
        try reader.forEachEvent(session: try reader.lastSessionID()) { events.append($0); return true }
        return events
    }

    /// The start is the clock's first reading, the end its last: never 0 on a clock that started
    /// later, and never back to 0 at the end.
    @Test func theSessionsStartAndEndAreOnItsClock() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("times.trace")
        try record(at: path, clock: ManualClock(start: 5_000_000_000)).close()
        let events = try events(path)
        let start = try #require(events.first), end = try #require(events.last)
        #expect(start.kind == .sessionStarted && end.kind == .sessionEnded)
        #expect(start.time == 5_000_000_000)
        #expect(end.time == 8_000_000_000)
        #expect(start.time == events[1].time)
        #expect(end.time == events[events.count - 2].time)
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.time <= $1.time }, "\(events.map(\.time))")
    }

    /// A killed recorder's file has the start's time as soon as the first events are committed.
    @Test func aKilledRecordingHasItsStartTime() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("killed.trace")
        let recorder = try record(at: path, clock: ManualClock(start: 7_000_000_000), posts: 1)
        try recorder.flush()
        let start = try #require(try events(path).first)
        #expect(start.kind == .sessionStarted && start.time == 7_000_000_000)
        try recorder.close()
    }

    /// A session with no event of the bus's starts and ends at 0.
    @Test func anEmptySessionStartsAndEndsAtZero() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("empty.trace")
        try TraceRecorder(path: path, session: SessionInfo(name: "empty", app: "tests")).close()
        #expect(try events(path).map(\.time) == [0, 0])
    }

    /// A clock past 2^63 ns (`ManualClock` saturates at `UInt64.max`) was stored negative; it is
    /// stored as `Int64.max`, the largest time a trace holds.
    @Test func aClockPastWhatATraceHoldsIsStoredAsTheLargestTime() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("late.trace")
        let clock = ManualClock(start: UInt64(Int64.max) - 1_500_000_000)
        try record(at: path, clock: clock, posts: 3).close()
        let stored = try Database(path: path, mode: .readOnly)
        #expect(try stored.scalar("SELECT count(*) FROM events WHERE time_ns < 0") == 0)
        #expect(try stored.scalar("SELECT max(time_ns) FROM events") == .max)
        let times = try events(path).map(\.time)
        #expect(times.first == UInt64(Int64.max) - 1_500_000_000)
        #expect(times.last == UInt64(Int64.max))
        #expect(times.allSatisfy { $0 <= UInt64(Int64.max) })
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "\(times)")
        // Saturated at UInt64.max, the clock is stored as the same largest time.
        clock.advance(bySeconds: .infinity)
        #expect(clock.now == .max)
        #expect(TraceWriter.storedTime(clock.now) == .max)
    }
}
