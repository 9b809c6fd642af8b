package import NotifyBus

extension RecordedEvent {
    /// `event` as the analysis reads it back from a trace: the columns ``TraceWriter`` stores for it,
    /// its strings resolved, without its payload (the analysis's query reads none).
    ///
    /// `MemoryTraceAnalysisTests` holds this to the writer and reader: every example scenario recorded
    /// to a file and read back gives the same events as recorded in memory and converted here.
    package init(_ event: TraceEvent, session: Int64) {
        let seq = event.seq, time = UInt64(TraceWriter.storedTime(event.time))
        switch event.kind {
        case .ownerRegistered(let owner, let typeName, let label):
            self.init(session: session, seq: seq, time: time, kind: .ownerRegistered, owner: owner, detail: typeName, note: label)
        case .observerAdded(let observer, let message, let owner, let sender, let callSite, let kind, let capture, let handler):
            self.init(session: session, seq: seq, time: time, kind: .observerAdded, message: message, owner: owner,
                      observer: observer, sender: sender, detail: kind.rawValue, note: capture?.rawValue,
                      callSite: callSite.description, handler: handler)
        case .observerRemoved(let observer, let message, let owner, let reason, let callSite):
            self.init(session: session, seq: seq, time: time, kind: .observerRemoved, message: message, owner: owner,
                      observer: observer, detail: reason.rawValue, callSite: callSite?.description)
        case .ownerAttached(let owner, let host):
            self.init(session: session, seq: seq, time: time, kind: .ownerAttached, owner: owner, parent: host)
        case .ownerReleased(let owner, let retainedBy):
            self.init(session: session, seq: seq, time: time, kind: .ownerReleased, owner: owner, observer: retainedBy)
        case .trapped(let post, let observer, let reason):
            self.init(session: session, seq: seq, time: time, kind: .trapped, observer: observer, post: post, detail: reason.rawValue)
        case .posted(let post, let message, let sender, let parent, let origin):
            let name = type(of: message) == NamedMessage.self ? message.messageName : type(of: message).name
            self.init(session: session, seq: seq, time: time, kind: .posted, message: name, post: post, parent: parent,
                      sender: sender, detail: origin.rawValue)
        case .delivered(let post, let observer):
            self.init(session: session, seq: seq, time: time, kind: .delivered, observer: observer, post: post)
        case .skipped(let post, let observer):
            self.init(session: session, seq: seq, time: time, kind: .skipped, observer: observer, post: post)
        case .enqueued(let post, let observer):
            self.init(session: session, seq: seq, time: time, kind: .enqueued, observer: observer, post: post)
        case .lifecycle(let owner, let phase, let detail):
            self.init(session: session, seq: seq, time: time, kind: .lifecycle, owner: owner, detail: phase.rawValue, note: detail)
        case .actionRouted(let action, let sender, _, let handler):
            self.init(session: session, seq: seq, time: time, kind: .actionRouted, owner: handler, sender: sender, detail: action)
        case .bridgeRejected(let name, let reason):
            self.init(session: session, seq: seq, time: time, kind: .bridgeRejected, message: name, note: reason)
        }
    }

    /// A session recorded in memory as its trace would hold it: `sessionStarted` (at the first event's
    /// time, as the writer sets it), the events, `sessionEnded` after the last.
    package static func session(_ events: [TraceEvent], name: String, id session: Int64 = 1) -> [RecordedEvent] {
        var recorded = [RecordedEvent(session: session, seq: 0, time: UInt64(TraceWriter.storedTime(events.first?.time ?? 0)),
                                      kind: .sessionStarted, note: name)]
        recorded.reserveCapacity(events.count + 2)
        var lastTime: UInt64 = 0
        for event in events {
            lastTime = max(lastTime, event.time)
            recorded.append(RecordedEvent(event, session: session))
        }
        recorded.append(RecordedEvent(session: session, seq: (events.last?.seq ?? 0) + 1,
                                      time: UInt64(TraceWriter.storedTime(lastTime)), kind: .sessionEnded))
        return recorded
    }
}

extension LeakAnalyzer {
    /// The findings of a session recorded in memory (``RecordedEvent/session(_:name:id:)``): the same
    /// fold as ``analyze(_:session:configuration:)`` over the same events, without a file. What
    /// `tracectl scan`'s journeys use unless their traces are kept.
    package static func analyze(recorded session: [RecordedEvent], configuration: Configuration) -> [LeakFinding] {
        var analyzer = LeakAnalyzer(configuration: configuration)
        for event in session { analyzer.consume(event) }
        analyzer.advance(to: session.last?.seq ?? 0)
        return analyzer.finish()
    }
}
