import NotifyBus
import TraceStore

/// A session as Trace Event JSON, the format Perfetto UI (ui.perfetto.dev) and `chrome://tracing` open.
///
/// The clock is the event order: one event is one microsecond (`ts` is the sequence number), so
/// events recorded in the same instant (a scenario's steps all are) stay apart and in order. The
/// layout follows the timeline page:
///
/// - process 1, "posts": every post, as a slice that lasts while it is being delivered (one
///   event long when no one observes it), named after its message; a post made during another's
///   delivery nests under it.
/// - a process per screen (or other top-level owner), in the timeline's order, whose threads
///   are its tracks: "visible", "in hierarchy", and one "observers" track per row of observers
///   whose lifetimes (slices, named after the message) do not overlap. Objects attached to a
///   screen get their own tracks in the screen's process, their names prefixed with `↳`.
/// - deliveries: slices half an event long inside the observer's lifetime, each with a flow
///   from its post (an arrow in both viewers).
/// - findings: instant events on the observer's track (or the owner's "visible" track for a
///   removal), named `error observer-outlives-owner` and so on, with their text in `args`.
struct ChromeTrace {
    let timeline: Timeline
    let describe: (LeakFinding) -> String

    private static let postsProcess = 1

    /// Writes the document to `sink` event by event: a million-event session is hundreds of
    /// megabytes of JSON, which is never held whole.
    func render(to sink: Output) {
        let layout = TimelineLayout(timeline)
        var first = true
        func separate() {
            if first { sink.append(UInt8(ascii: "\n")) } else { sink.append(",\n") }
            first = false
        }
        func emit(_ fields: [(String, JSON)]) {
            separate()
            JSON.object(fields).render(to: sink)
        }
        func metadata(_ name: String, pid: Int, tid: Int? = nil, _ args: [(String, JSON)]) {
            var fields: [(String, JSON)] = [("ph", .string("M")), ("name", .string(name)), ("pid", .int(Int64(pid)))]
            if let tid { fields.append(("tid", .int(Int64(tid)))) }
            fields.append(("args", .object(args)))
            emit(fields)
        }

        sink.append("{\"displayTimeUnit\":\"ns\",\"otherData\":")
        JSON.object([
            ("session", .int(timeline.session.id)), ("scenario", .string(timeline.session.name)),
            ("clock", .string("ts is the event's sequence number: one event = 1 µs")),
        ] + (timeline.windowText.map { [("window", .string($0))] } ?? []))
            .render(to: sink)
        sink.append(",\"traceEvents\":[")

        // Tracks: the posts process, then a process per root lane with its descendants' tracks.
        metadata("process_name", pid: Self.postsProcess, [("name", .string("posts"))])
        metadata("process_sort_index", pid: Self.postsProcess, [("sort_index", .int(0))])
        metadata("thread_name", pid: Self.postsProcess, tid: 1, [("name", .string("posts"))])
        var process: [Int] = []  // per lane
        var visibleTrack: [Int] = [], hierarchyTrack: [Int] = [], rowTrack: [[Int]] = []
        var nextPid = Self.postsProcess, nextTid = 1
        for (index, (lane, depth)) in layout.order.enumerated() {
            // The order is depth first: a lane below the top level is in its root's process, the last one opened.
            if depth == 0 {
                nextPid += 1
                metadata("process_name", pid: nextPid, [("name", .string(lane.label == lane.type ? lane.label : "\(lane.label) (\(lane.type))"))])
                metadata("process_sort_index", pid: nextPid, [("sort_index", .int(Int64(nextPid)))])
            }
            let pid = nextPid
            process.append(pid)
            // Indented by depth up to eight levels: a chain of attachments as long as the trace would
            // otherwise make names whose total length grows with its square.
            let prefix = depth == 0 ? "" : String(repeating: "  ", count: min(depth - 1, 8)) + "↳ \(lane.label) · "
            func track(_ name: String) -> Int {
                nextTid += 1
                metadata("thread_name", pid: pid, tid: nextTid, [("name", .string(prefix + name))])
                metadata("thread_sort_index", pid: pid, tid: nextTid, [("sort_index", .int(Int64(nextTid)))])
                return nextTid
            }
            visibleTrack.append(track("visible"))
            hierarchyTrack.append(track("in hierarchy"))
            rowTrack.append((0..<(layout.rowCounts[index] ?? 0)).map { track("observers \($0 + 1)") })
        }
        // Observers without a shown owner.
        var orphanTracks: [Int] = []
        if let rows = layout.rowCounts[-1], rows > 0 {
            nextPid += 1
            metadata("process_name", pid: nextPid, [("name", .string("(no owner)"))])
            orphanTracks = (0..<rows).map { row in
                nextTid += 1
                metadata("thread_name", pid: nextPid, tid: nextTid, [("name", .string("observers \(row + 1)"))])
                return nextTid
            }
        }
        let orphanPid = nextPid
        func place(observer index: Int) -> (pid: Int, tid: Int) {
            let (lane, row) = layout.observerRows[index]
            return lane >= 0 ? (process[lane], rowTrack[lane][row]) : (orphanPid, orphanTracks[row])
        }

        // Screens' intervals.
        for (index, (lane, _)) in layout.order.enumerated() {
            for (intervals, tid, name) in [(lane.visible, visibleTrack[index], "visible"),
                                           (lane.inHierarchy, hierarchyTrack[index], "in hierarchy")] {
                for interval in intervals {
                    emit([("ph", .string("X")), ("cat", .string("screen")), ("name", .string("\(lane.label) \(name)")),
                          ("ts", .from(interval.start)), ("dur", .from(interval.end - interval.start)),
                          ("pid", .int(Int64(process[index]))), ("tid", .int(Int64(tid)))])
                }
            }
        }
        // Observers, posts and deliveries are most of a large session: written as bytes, field by
        // field as `JSON.object` would write them, with no value tree per event (ChromeTraceTests
        // compare whole documents made by the tree).
        // Observer lifetimes; each observer's message escaped once, for its deliveries too.
        var escapedMessages: [[UInt8]] = []
        escapedMessages.reserveCapacity(timeline.observers.count)
        for (index, observer) in timeline.observers.enumerated() {
            let (pid, tid) = place(observer: index)
            let message = Self.escaped(observer.message ?? "every message")
            escapedMessages.append(message)
            separate()
            sink.append(#"{"ph":"X","cat":"observer","name":""#)
            sink.append(message)
            sink.append(#"","ts":"#)
            sink.append(Int64(bitPattern: observer.interval.start))
            sink.append(#","dur":"#)
            sink.append(Int64(bitPattern: observer.interval.end - observer.interval.start))
            Self.place(pid, tid, to: sink)
            sink.append(#","args":{"observer":"#)
            sink.append(Int64(bitPattern: observer.id))
            sink.append(#","callsite":"#)
            sink.appendJSONString(observer.callSite)
            sink.append(#","kind":"#)
            sink.appendJSONString(observer.kind.rawValue)
            sink.append(#","ending":"#)
            switch observer.ending {
            case .stillRegistered: sink.append(#""still registered at the end""#)
            case .removed(nil): sink.append(#""removed""#)
            case .removed(let reason?): sink.appendJSONString("removed (\(reason.rawValue))")
            }
            if let capture = observer.capture {
                sink.append(#","capture":"#)
                sink.appendJSONString(capture.rawValue)
            }
            sink.append("}}")
        }
        // Posts last while they are delivered, and enclose the posts made during their delivery.
        var postEnd: [UInt64: UInt64] = [:]
        postEnd.reserveCapacity(timeline.posts.count)
        for post in timeline.posts { postEnd[post.post] = post.seq + 1 }
        for delivery in timeline.deliveries { postEnd[delivery.post] = max(postEnd[delivery.post] ?? 0, delivery.seq + 1) }
        for post in timeline.posts.reversed() {
            if let parent = post.parent, let end = postEnd[post.post] { postEnd[parent] = max(postEnd[parent] ?? 0, end) }
        }
        var postSeq: [UInt64: UInt64] = [:]
        postSeq.reserveCapacity(timeline.posts.count)
        for post in timeline.posts {
            postSeq[post.post] = post.seq
            separate()
            sink.append(#"{"ph":"X","cat":"post","name":"#)
            sink.appendJSONString(post.message)
            sink.append(#","ts":"#)
            sink.append(Int64(bitPattern: post.seq))
            sink.append(#","dur":"#)
            sink.append(Int64(bitPattern: (postEnd[post.post] ?? post.seq + 1) - post.seq))
            Self.place(Self.postsProcess, 1, to: sink)
            sink.append(#","args":{"post":"#)
            sink.append(Int64(bitPattern: post.post))
            sink.append("}}")
        }
        // Deliveries, each with a flow from its post.
        for (flow, delivery) in timeline.deliveries.enumerated() {
            guard let index = layout.observerIndex[delivery.observer] else { continue }
            let (pid, tid) = place(observer: index)
            separate()
            sink.append(#"{"ph":"X","cat":"delivery","name":""#)
            sink.write(delivery.outcome.rawValue)
            sink.append(UInt8(ascii: " "))
            sink.append(escapedMessages[index])
            sink.append(#"","ts":"#)
            sink.append(Int64(bitPattern: delivery.seq))
            sink.append(#","dur":0.5"#)
            Self.place(pid, tid, to: sink)
            sink.append(#","args":{"post":"#)
            sink.append(Int64(bitPattern: delivery.post))
            sink.append(#","observer":"#)
            sink.append(Int64(bitPattern: delivery.observer))
            sink.append("}}")
            guard let from = postSeq[delivery.post] else { continue }
            separate()
            sink.append(#"{"ph":"s","cat":"delivery","name":"delivery","id":"#)
            sink.append(Int64(flow + 1))
            sink.append(#","ts":"#)
            sink.append(Int64(bitPattern: from))
            Self.place(Self.postsProcess, 1, to: sink)
            sink.append("}")
            separate()
            sink.append(#"{"ph":"f","bp":"e","cat":"delivery","name":"delivery","id":"#)
            sink.append(Int64(flow + 1))
            sink.append(#","ts":"#)
            sink.append(Int64(bitPattern: delivery.seq))
            Self.place(pid, tid, to: sink)
            sink.append("}")
        }
        // Findings where the analysis saw them.
        for group in timeline.groups {
            for finding in group.findings {
                let place: (pid: Int, tid: Int)? = if let observer = finding.observer.flatMap({ layout.observerIndex[$0] }) {
                    place(observer: observer)
                } else if let lane = finding.ownerID.flatMap({ layout.laneOf[$0] }) {
                    (process[lane], visibleTrack[lane])
                } else {
                    nil
                }
                guard let place else { continue }
                emit([("ph", .string("i")), ("s", .string("t")), ("cat", .string("finding")),
                      ("name", .string("\(finding.rule.severity.rawValue) \(finding.rule.rawValue)")),
                      ("ts", .from(finding.seq)), ("pid", .int(Int64(place.pid))), ("tid", .int(Int64(place.tid))),
                      ("args", .object([("text", .string(describe(finding))), ("callsite", .string(finding.callSite)),
                                        ("fingerprint", .string(finding.fingerprint)), ("group", .string(group.id))]))])
            }
        }
        sink.write("\n]}\n")
    }

    /// `,"pid":P,"tid":T`.
    private static func place(_ pid: Int, _ tid: Int, to sink: Output) {
        sink.append(#","pid":"#)
        sink.append(Int64(pid))
        sink.append(#","tid":"#)
        sink.append(Int64(tid))
    }

    /// `text` escaped for a JSON string, without its quotes.
    private static func escaped(_ text: String) -> [UInt8] {
        Array(JSON.string(text).rendered.utf8.dropFirst().dropLast())
    }
}
