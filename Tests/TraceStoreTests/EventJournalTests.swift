import Foundation
import NotifyBus
import Synchronization
import Testing
@testable import TraceStore

/// A message whose name is given, to try every length a post record's name can have.
private struct NameLength3: BusMessage { static let name = "abc" }
private struct NameLength4: BusMessage { static let name = "abcd" }
private struct NameLength12: BusMessage { static let name = "abcdefghijkl" }
private struct NameLength13: BusMessage { static let name = "abcdefghijklm" }
private struct NameEmpty: BusMessage { static let name = "" }
/// Longer than the journal keeps, in two-byte characters after one ASCII letter, so that the cut (at
/// an even byte count) falls inside a character and has to step back to its start.
private struct NameTooLong: BusMessage { static let name = "a" + String(repeating: "é", count: 5_000) + "x" }
/// A message that is a class, posted as itself and as its subclass: a record carries the dynamic type's name.
private class ClassMessage: BusMessage, @unchecked Sendable {
    // @unchecked: no stored properties.
    init() {}
}
private final class SubclassMessage: ClassMessage, @unchecked Sendable {}

/// The journal's direct writers (`appendDelivery`, `appendPost`) against its general encoder: the same
/// records, byte for byte, so that recovery reads what the posting thread wrote the fast way.
@Suite struct EventJournalTests {
    private static let messages: [any BusMessage] = {
        // A subclass's instance in an existential made from its superclass's static type: the type the
        // existential holds is not the one whose name the record carries.
        let subclass: ClassMessage = SubclassMessage()
        // Structs, repeated and not (a post record takes a repeated struct's name from a cache), classes.
        return [
            NameLength3(), NameLength4(), NameLength12(), NameLength13(), NameEmpty(), NameTooLong(), Tick(n: 1),
            NamedMessage(name: "custom.name"), NameLength3(), ClassMessage(), subclass, subclass, ClassMessage(),
            Tick(n: 2), Tick(n: 3), SubclassMessage(), NameLength3(),
        ]
    }()

    /// Every event the direct writers take, with and without the optional fields.
    private static func events() -> [TraceEvent] {
        var events: [TraceEvent] = []
        var seq: UInt64 = 0
        func add(_ kind: TraceEvent.Kind) {
            seq += 1
            events.append(TraceEvent(seq: seq, time: seq &* 977 &+ (seq << 40), kind: kind))
        }
        for (index, message) in messages.enumerated() {
            let id = UInt64(index + 1)
            for (sender, parent) in [(nil, nil), (id + 100, nil), (nil, id + 200), (id + 100, id + 200)] as [(UInt64?, UInt64?)] {
                for origin in PostOrigin.allCases {
                    add(.posted(post: id, message: message, sender: sender, parent: parent, origin: origin))
                }
            }
            add(.delivered(post: id, observer: UInt64.max - id))
            add(.skipped(post: id, observer: 7))
            add(.enqueued(post: id, observer: id << 33))
        }
        return events
    }

    /// The journal's ring after `body` wrote into a journal of one session.
    private static func ring(in dir: TemporaryDirectory, named name: String,
                             _ body: (EventJournal, borrowing Atomic<Bool>) -> Void) throws -> Data {
        let journal = try EventJournal(trace: dir.file(name), session: 1, startedAt: "2026-11-26", events: 1)
        let accepting = Atomic<Bool>(true)
        body(journal, accepting)
        return try Data(contentsOf: URL(fileURLWithPath: journal.path))
    }

    /// An action tried on more responders than a journal record can hold keeps the first ones in the
    /// journal and every one in the trace: before, the record never fitted in the ring and the poster
    /// waited for room for ever, holding the session's lock.
    @Test(.timeLimit(.minutes(1)))
    func anActionTriedOnMoreRespondersThanTheRingHoldsIsRecorded() throws {
        let dir = try TemporaryDirectory()
        let path = dir.file("responders.trace")
        // A small queue, so the smallest ring (256 KiB): 100 000 ids are 800 KB.
        let recorder = try TraceRecorder(path: path, session: SessionInfo(name: "responders"), bufferCapacity: 16)
        let tried = Array(UInt64(1)...100_000)
        recorder.record(TraceEvent(seq: 1, time: 1, kind: .actionRouted(action: "tap", sender: 1, tried: tried, handler: nil)))
        try recorder.close()
        let events = try TraceReader(path: path).events(session: recorder.sessionID)
        let routed = try #require(events.first { $0.kind == .actionRouted })
        #expect(routed.triedResponders == tried)
    }

    @Test func directWritersWriteWhatTheGeneralEncoderWrites() throws {
        let dir = try TemporaryDirectory()
        let events = Self.events()
        // Several laps of the ring (256 KiB), so that pads at its end are compared too.
        let laps = 40
        let general = try Self.ring(in: dir, named: "general") { journal, accepting in
            for _ in 0..<laps {
                var end: UInt64?
                for event in events {
                    end = journal.append(event, accepting: accepting)
                    #expect(end != nil)
                }
                // All of it in SQLite, as far as the journal knows: the next lap may overwrite it.
                journal.markApplied(end ?? 0)
            }
        }
        let direct = try Self.ring(in: dir, named: "direct") { journal, accepting in
            for _ in 0..<laps {
                var end: UInt64?
                for event in events {
                    switch event.kind {
                    case .delivered(let post, let observer):
                        end = journal.appendDelivery(.delivered, seq: event.seq, time: event.time, post: post, observer: observer,
                                                     accepting: accepting)
                    case .skipped(let post, let observer):
                        end = journal.appendDelivery(.skipped, seq: event.seq, time: event.time, post: post, observer: observer,
                                                     accepting: accepting)
                    case .enqueued(let post, let observer):
                        end = journal.appendDelivery(.enqueued, seq: event.seq, time: event.time, post: post, observer: observer,
                                                     accepting: accepting)
                    case .posted(let post, let message, let sender, let parent, let origin):
                        end = journal.appendPost(seq: event.seq, time: event.time, post: post, message: message, sender: sender,
                                                 parent: parent, origin: origin, accepting: accepting)
                    default:
                        end = nil
                    }
                    #expect(end != nil)
                }
                journal.markApplied(end ?? 0)
            }
        }
        #expect(general.count == direct.count)
        let first = zip(general, direct).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(first == nil, "first differing byte at \(first ?? -1)")
    }
}

private struct Tick: BusMessage { var n: Int }
