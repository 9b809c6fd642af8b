import Testing
import TestSupport
@testable import TraceStore

/// `Timeline.build(_:session:window:)` against its reference: the whole session's timeline,
/// filtered by hand. A window keeps exactly the posts, deliveries and findings whose seq it
/// holds, the observers registered at some point of it, and the owners registered before its end.
@Suite struct TimelineWindowTests {
    static let fixtures = ["demo", "v2-keyboard-helper-leak", "v2-audio-interruption-unowned", "seed004-keyboard-timing"]

    /// Whether a half-open interval reaches into `start..<end` (an empty one when it lies inside).
    private func reaches(_ interval: Timeline.Interval, _ start: UInt64, _ end: UInt64) -> Bool {
        interval.start < end && (interval.end > start || interval.start == interval.end && interval.start >= start)
    }

    @Test(arguments: fixtures)
    func everyWindowKeepsWhatTheWholeTimelineHoldsInIt(trace: String) throws {
        let reader = try TraceReader(path: fixture(trace))
        let session = try reader.session(nil).id
        let whole = try Timeline.build(reader, session: session)
        #expect(whole.start == 0 && whole.window == nil)
        let last = whole.end - 1
        // Every window of a stride over the session, and past both of its ends.
        let bounds = Array(stride(from: UInt64(0), through: last + 3, by: 5)) + [last]
        for since in bounds {
            for until in bounds where until >= since {
                let part = try Timeline.build(reader, session: session, window: since...until)
                let start = min(since, last + 1), end = min(last + 1, until + 1)
                let label = "\(trace) \(since)...\(until)"
                #expect(part.window == since...until, "\(label)")
                #expect(part.start == start && part.end == end, "\(label): \(part.start)..<\(part.end)")
                #expect(part.posts == whole.posts.filter { (since...until).contains($0.seq) }, "\(label)")
                #expect(part.deliveries == whole.deliveries.filter { (since...until).contains($0.seq) }, "\(label)")
                let findings = part.groups.flatMap(\.findings).map(\.seq).sorted()
                #expect(findings == whole.groups.flatMap(\.findings).map(\.seq).filter { (since...until).contains($0) }.sorted(),
                        "\(label)")
                #expect(part.lanes.map(\.owner) == whole.lanes.filter { $0.registeredAt < end }.map(\.owner), "\(label)")
                // An observer still registered at the window's end ends there, not at the session's.
                let expected = whole.observers.filter { reaches($0.interval, start, end) }
                #expect(part.observers.map(\.id) == expected.map(\.id), "\(label)")
                for (shown, full) in zip(part.observers, expected) {
                    #expect(shown.interval.start == full.interval.start, "\(label) observer \(full.id)")
                    #expect(shown.interval.end == (full.ending == .stillRegistered ? end : full.interval.end),
                            "\(label) observer \(full.id)")
                }
                for (shown, full) in zip(part.lanes, whole.lanes.filter { $0.registeredAt < end }) {
                    let clip = { (interval: Timeline.Interval) in
                        Timeline.Interval(start: interval.start, end: interval.end == whole.end ? end : interval.end)
                    }
                    #expect(shown.visible == full.visible.map(clip).filter { reaches($0, start, end) }, "\(label) \(full.label)")
                    #expect(shown.inHierarchy == full.inHierarchy.map(clip).filter { reaches($0, start, end) },
                            "\(label) \(full.label)")
                }
            }
        }
    }

    /// A window that holds the whole session draws what no window draws.
    @Test(arguments: fixtures)
    func aWindowOverTheWholeSessionIsTheWholeTimeline(trace: String) throws {
        let reader = try TraceReader(path: fixture(trace))
        let session = try reader.session(nil).id
        var whole = try Timeline.build(reader, session: session)
        let all = try Timeline.build(reader, session: session, window: 0...UInt64(Int64.max))
        whole.window = all.window
        #expect(all.lanes == whole.lanes && all.observers == whole.observers && all.posts == whole.posts
                && all.deliveries == whole.deliveries && all.start == whole.start && all.end == whole.end)
    }
}
