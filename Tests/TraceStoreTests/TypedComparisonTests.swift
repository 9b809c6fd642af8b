import Foundation
import NotifyBus
import Testing
@testable import TraceStore

/// Deliveries are compared as integers and rendered only when shown: what is shown must be the
/// same text as before, with ids renamed, and a difference in a delivery must still be found.
struct TypedComparisonTests {
    /// A screen with two observers, `posts` posts each delivered to both, ids offset by `base`
    /// (the other trace numbered its objects differently).
    static func events(base: UInt64, posts: Int, lastObserver: UInt64? = nil, extraSkip: Bool = false) -> [RecordedEvent] {
        var seq: UInt64 = 0
        var list: [RecordedEvent] = []
        func add(_ kind: EventKind, message: String? = nil, owner: UInt64? = nil, observer: UInt64? = nil, post: UInt64? = nil,
                 detail: String? = nil, note: String? = nil, payload: String? = nil) {
            seq += 1
            list.append(RecordedEvent(session: 1, seq: seq, time: seq, kind: kind, message: message, owner: owner, observer: observer,
                                      post: post, detail: detail, note: note, payload: payload))
        }
        add(.ownerRegistered, owner: base + 1, detail: "Screen", note: "Login")
        add(.observerAdded, message: "tick", owner: base + 1, observer: base + 10, detail: "token")
        add(.observerAdded, message: "tick", owner: base + 1, observer: base + 11, detail: "token")
        for n in 0..<posts {
            add(.posted, message: "tick", post: base + 100 + UInt64(n), detail: "reaction", payload: #"{"n":\#(n % 3)}"#)
            add(.delivered, observer: base + 10, post: base + 100 + UInt64(n))
            let second = n == posts - 1 ? lastObserver ?? base + 11 : base + 11
            add(.delivered, observer: second, post: base + 100 + UInt64(n))
        }
        if extraSkip { add(.skipped, observer: base + 11, post: base + 100) }
        return list
    }

    @Test func equalTracesWithOtherIdsCompareEqual() {
        let report = ReplayReport.compare(expected: Self.events(base: 0, posts: 50), actual: Self.events(base: 7_000, posts: 50))
        #expect(report.isEqual)
        #expect(report.expectedCount == 152)
    }

    @Test func aDeliveryToAnotherObserverIsFoundAndShownWithItsContext() {
        let report = ReplayReport.compare(expected: Self.events(base: 0, posts: 5),
                                          actual: Self.events(base: 500, posts: 5, lastObserver: 510))
        #expect(!report.isEqual)
        #expect(report.diffText == """
            first divergence in the reactions
              deliver tick#4 -> Login#1.tick#2
              post tick#5 reaction {"n":1}
              deliver tick#5 -> Login#1.tick#1
            − deliver tick#5 -> Login#1.tick#2   (seq 18)
            + deliver tick#5 -> Login#1.tick#1   (seq 18)
            1 reaction(s) missing, 1 added
            """)
        #expect(report.missingReactions.map(\.text) == ["deliver tick#5 -> Login#1.tick#2"])
        #expect(report.addedReactions.map(\.text) == ["deliver tick#5 -> Login#1.tick#1"])
    }

    @Test func aSkipOfAnUnknownObserverIsRenderedAsBefore() {
        var actual = Self.events(base: 0, posts: 3, extraSkip: true)
        actual[actual.count - 1].observer = 99
        let report = ReplayReport.compare(expected: Self.events(base: 0, posts: 3, extraSkip: true), actual: actual)
        #expect(report.addedReactions.map(\.text) == ["skip tick#1 -> ?"])
        #expect(report.missingReactions.map(\.text) == ["skip tick#1 -> Login#1.tick#2"])
    }
}
