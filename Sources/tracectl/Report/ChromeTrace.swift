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
        func emit(_ fields: [(String, JSON)]) {
            if first { sink.append(UInt8(ascii: "\n")) } else { sink.append(",\n") }
            first = false
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
        ]).render(to: sink)
        sink.append(",\"traceEvents\":[")

        // Tracks: the posts process, then a process per root lane with its descendants' tracks.
        metadata("process_name", pid: Self.postsProcess, [("name", .string("posts"))])
        metadata("process_sort_index", pid: Self.postsProcess, [("sort_index", .int(0))])
        metadata("thread_name", pid: Self.postsProcess, tid: 1, [("name", .string("posts"))])
        var process: [Int] = []  // per lane
        var visibleTrack: [Int] = [], hierarchyTrack: [Int] = [], rowTrack: [[Int]] = []
        var nextPid = Self.postsProcess, nextTid = 1
        for (index, (lane, depth)) in layout.order.enumerated() {
            let pid: Int
            if depth == 0 {
                nextPid += 1
                pid = nextPid
                metadata("process_name", pid: pid, [("name", .string(lane.label == lane.type ? lane.label : "\(lane.label) (\(lane.type))"))])
                metadata("process_sort_index", pid: pid, [("sort_index", .int(Int64(pid)))])
            } else {
                pid = process[layout.order[..<index].lastIndex { $0.depth < depth }!]
            }
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
            rowTrack.append((0..<(layout.rowEnds[index]?.count ?? 0)).map { track("observers \($0 + 1)") })
        }
        // Observers without a shown owner.
        var orphanTracks: [Int] = []
        if let rows = layout.rowEnds[-1]?.count, rows > 0 {
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
        // Observer lifetimes.
        for (index, observer) in timeline.observers.enumerated() {
            let (pid, tid) = place(observer: index)
            let ending: String = switch observer.ending {
            case .stillRegistered: "still registered at the end"
            case .removed(let reason): "removed" + (reason.map { " (\($0.rawValue))" } ?? "")
            }
            var args: [(String, JSON)] = [("observer", .from(observer.id)), ("callsite", .string(observer.callSite)),
                                          ("kind", .string(observer.kind.rawValue)), ("ending", .string(ending))]
            if let capture = observer.capture { args.append(("capture", .string(capture.rawValue))) }
            emit([("ph", .string("X")), ("cat", .string("observer")), ("name", .string(observer.message ?? "every message")),
                  ("ts", .from(observer.interval.start)), ("dur", .from(observer.interval.end - observer.interval.start)),
                  ("pid", .int(Int64(pid))), ("tid", .int(Int64(tid))), ("args", .object(args))])
        }
        // Posts last while they are delivered, and enclose the posts made during their delivery.
        var postEnd: [UInt64: UInt64] = [:]
        for post in timeline.posts { postEnd[post.post] = post.seq + 1 }
        for delivery in timeline.deliveries { postEnd[delivery.post] = max(postEnd[delivery.post] ?? 0, delivery.seq + 1) }
        for post in timeline.posts.reversed() {
            if let parent = post.parent, let end = postEnd[post.post] { postEnd[parent] = max(postEnd[parent] ?? 0, end) }
        }
        var postSeq: [UInt64: UInt64] = [:]
        for post in timeline.posts {
            postSeq[post.post] = post.seq
            emit([("ph", .string("X")), ("cat", .string("post")), ("name", .string(post.message)),
                  ("ts", .from(post.seq)), ("dur", .from((postEnd[post.post] ?? post.seq + 1) - post.seq)),
                  ("pid", .int(Int64(Self.postsProcess))), ("tid", .int(1)), ("args", .object([("post", .from(post.post))]))])
        }
        // Deliveries, each with a flow from its post.
        for (flow, delivery) in timeline.deliveries.enumerated() {
            guard let index = layout.observerIndex[delivery.observer] else { continue }
            let (pid, tid) = place(observer: index)
            let message = timeline.observers[index].message ?? "every message"
            emit([("ph", .string("X")), ("cat", .string("delivery")), ("name", .string("\(delivery.outcome.rawValue) \(message)")),
                  ("ts", .from(delivery.seq)), ("dur", .double(0.5)), ("pid", .int(Int64(pid))), ("tid", .int(Int64(tid))),
                  ("args", .object([("post", .from(delivery.post)), ("observer", .from(delivery.observer))]))])
            guard let from = postSeq[delivery.post] else { continue }
            emit([("ph", .string("s")), ("cat", .string("delivery")), ("name", .string("delivery")), ("id", .int(Int64(flow + 1))),
                  ("ts", .from(from)), ("pid", .int(Int64(Self.postsProcess))), ("tid", .int(1))])
            emit([("ph", .string("f")), ("bp", .string("e")), ("cat", .string("delivery")), ("name", .string("delivery")),
                  ("id", .int(Int64(flow + 1))), ("ts", .from(delivery.seq)), ("pid", .int(Int64(pid))), ("tid", .int(Int64(tid)))])
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
}
