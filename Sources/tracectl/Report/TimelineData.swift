import NotifyBus
import TraceStore

/// The JSON inside the page's `<script>` element, written to the page as it is made.
///
/// Inside `<script>`, `</` could close the element: JSON allows `<\/` for it, and every `</`
/// is written so, across writes too (a `<` ending one write and a `/` starting the next).
final class ScriptData {
    private let out: Output
    private var afterLess = false

    init(_ out: Output) { self.out = out }

    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var start = 0
            for index in bytes.indices {
                let byte = bytes[index]
                if byte == UInt8(ascii: "/") && afterLess {
                    out.append(UnsafeBufferPointer(rebasing: bytes[start..<index]))
                    out.append("\\")
                    start = index
                }
                afterLess = byte == UInt8(ascii: "<")
            }
            out.append(UnsafeBufferPointer(rebasing: bytes[start...]))
        }
    }

    static func += (sink: inout ScriptData, text: String) { sink.write(text) }

    /// A number in decimal, straight into the page: digits and a sign cannot close the element.
    func number<Value: BinaryInteger>(_ value: Value) {
        if Value.isSigned { out.append(Int64(value)) } else { out.append(UInt64(value)) }
        afterLess = false
    }

    /// One byte of punctuation that is neither `<` nor `/`.
    func punctuation(_ byte: UInt8) {
        assert(byte != UInt8(ascii: "<") && byte != UInt8(ascii: "/"))
        out.append(byte)
        afterLess = false
    }
}

/// The timeline as the compact JSON its page reads: lanes in tree order, observers packed into
/// rows, posts and deliveries as flat number arrays, findings grouped by cause.
struct TimelineData {
    let timeline: Timeline
    let trace: String
    let describe: (LeakFinding) -> String
    /// The steps marked on the axis (``TimelineStep``).
    var steps: [TimelineStep] = []

    /// Outcome codes in the `deliveries` array.
    static func outcomeCode(_ outcome: DeliveryOutcome) -> Int {
        switch outcome {
        case .delivered: 0
        case .skipped: 1
        case .trapped: 2
        }
    }

    /// Writes the JSON into `out`, as it is made: the page never holds it as one string.
    func render(to sink: ScriptData) {
        var out = sink
        var messages: [String] = []
        var messageIndex: [String: Int] = [:]
        func intern(_ message: String?) -> Int {
            guard let message else { return -1 }
            if let index = messageIndex[message] { return index }
            messageIndex[message] = messages.count
            messages.append(message)
            return messages.count - 1
        }
        let layout = TimelineLayout(timeline)
        let (order, laneOf, rowCounts) = (layout.order, layout.laneOf, layout.rowCounts)
        let (observerRows, observerIndex) = (layout.observerRows, layout.observerIndex)

        var postIndex: [UInt64: Int] = [:]
        out += "{\"title\":"
        out += JSON.string(timeline.title).rendered
        out += ",\"trace\":"
        out += JSON.string(trace).rendered
        out += ",\"start\":\(timeline.start),\"end\":\(timeline.end),\"lanes\":["
        for (index, (lane, depth)) in order.enumerated() {
            if index > 0 { out += "," }
            let fields: [(String, JSON)] = [
                ("label", .string(lane.label)), ("type", .string(lane.type)), ("owner", .from(lane.owner)),
                ("depth", .int(Int64(depth))), ("screen", .bool(lane.isScreen)),
                ("rows", .int(Int64(rowCounts[index] ?? 0))),
                ("registered", .from(lane.registeredAt)),
                ("visible", .array(lane.visible.flatMap { [JSON.from($0.start), .from($0.end)] })),
                ("hierarchy", .array(lane.inHierarchy.flatMap { [JSON.from($0.start), .from($0.end)] })),
                ("gone", .from(lane.goneAt)), ("released", .bool(lane.released)),
            ]
            out += JSON.object(fields).rendered
        }
        // Observers, column by column; strings are indexes into `strings`.
        var strings: [String] = []
        var stringIndex: [String: Int] = [:]
        func string(_ text: String?) -> Int {
            guard let text else { return -1 }
            if let index = stringIndex[text] { return index }
            stringIndex[text] = strings.count
            strings.append(text)
            return strings.count - 1
        }
        let observers = timeline.observers
        func column<Value: BinaryInteger>(_ name: String, _ values: [Value]) {
            out += "\"\(name)\":["
            for (index, value) in values.enumerated() {
                if index > 0 { out.punctuation(UInt8(ascii: ",")) }
                out.number(value)
            }
            out += "]"
        }
        out += "],\"observers\":{"
        column("id", observers.map(\.id)); out += ","
        column("lane", observerRows.map(\.lane)); out += ","
        column("row", observerRows.map(\.row)); out += ","
        column("message", observers.map { intern($0.message) }); out += ","
        column("site", observers.map { string($0.callSite) }); out += ","
        column("kind", observers.map { string($0.kind.rawValue) }); out += ","
        column("capture", observers.map { string($0.capture?.rawValue) }); out += ","
        column("start", observers.map(\.interval.start)); out += ","
        column("end", observers.map(\.interval.end)); out += ","
        column("open", observers.map { $0.ending == .stillRegistered ? 1 : 0 }); out += ","
        column("ending", observers.map { observer in
            switch observer.ending {
            case .stillRegistered: string("still registered at the end")
            case .removed(let reason): string("removed" + (reason.map { " (\($0.rawValue))" } ?? ""))
            }
        })
        out += "}"
        // Flat arrays: [seq, message, parent post index or -1] per post.
        out += ",\"posts\":["
        postIndex.reserveCapacity(timeline.posts.count)
        let comma = UInt8(ascii: ",")
        for (index, post) in timeline.posts.enumerated() {
            if index > 0 { out.punctuation(comma) }
            postIndex[post.post] = index
            let parent = post.parent.flatMap { postIndex[$0] } ?? -1
            out.number(post.seq)
            out.punctuation(comma)
            out.number(intern(post.message))
            out.punctuation(comma)
            out.number(parent)
        }
        // [seq, observer index, outcome code, post index or -1] per delivery.
        out += "],\"deliveries\":["
        var first = true
        // Deliveries follow their post: the last one looked up is usually the one.
        var lastPost: (id: UInt64, index: Int)?
        for delivery in timeline.deliveries {
            guard let observer = observerIndex[delivery.observer] else { continue }
            if !first { out.punctuation(comma) }
            first = false
            let post: Int
            if let lastPost, lastPost.id == delivery.post {
                post = lastPost.index
            } else {
                post = postIndex[delivery.post] ?? -1
                lastPost = (delivery.post, post)
            }
            out.number(delivery.seq)
            out.punctuation(comma)
            out.number(observer)
            out.punctuation(comma)
            out.number(Self.outcomeCode(delivery.outcome))
            out.punctuation(comma)
            out.number(post)
        }
        // Groups, each with its findings column by column.
        out += "],\"groups\":["
        for (index, group) in timeline.groups.enumerated() {
            if index > 0 { out += "," }
            out += "{\"id\":"
            out += JSON.string(group.id).rendered
            out += ",\"severity\":"
            out += JSON.string(group.severity.rawValue).rendered
            out += ",\"ownerType\":"
            out += JSON.from(group.ownerType).rendered
            out += ",\"callsite\":"
            out += JSON.string(group.callSite).rendered
            out += ",\"findings\":{"
            let findings = group.findings
            column("rule", findings.map { string($0.rule.rawValue) }); out += ","
            column("fingerprint", findings.map { string($0.fingerprint) }); out += ","
            column("message", findings.map { string($0.message) }); out += ","
            column("owner", findings.map { string($0.owner) }); out += ","
            column("seq", findings.map(\.seq)); out += ","
            column("lane", findings.map { $0.ownerID.flatMap { laneOf[$0] } ?? -1 }); out += ","
            column("observer", findings.map { $0.observer.flatMap { observerIndex[$0] } ?? -1 }); out += ","
            out += "\"text\":"
            out += JSON.array(findings.map { .string(describe($0)) }).rendered
            out += "}}"
        }
        out += "],\"rules\":{"
        for (index, rule) in LeakRule.allCases.enumerated() {
            if index > 0 { out += "," }
            out += JSON.string(rule.rawValue).rendered
            out += ":"
            out += JSON.object([("title", .string(rule.title)), ("help", .string(rule.help)),
                         ("severity", .string(rule.severity.rawValue))]).rendered
        }
        // [seq, label] per step, in order.
        out += "},\"steps\":"
        out += JSON.array(steps.map { .array([.from($0.seq), .string($0.label)]) }).rendered
        out += ",\"messages\":"
        out += JSON.array(messages.map(JSON.string)).rendered
        out += ",\"strings\":"
        out += JSON.array(strings.map(JSON.string)).rendered
        out += "}"
    }
}

/// Where each owner and observer goes: owners in tree order (attached objects under their host),
/// each observer on a row of its owner's lane, shared with the ones that ended before it began.
struct TimelineLayout {
    /// The lanes shown, in order, with their depth in the attachment tree.
    let order: [(lane: Timeline.Lane, depth: Int)]
    /// A lane's index by owner id.
    let laneOf: [UInt64: Int]
    /// Per lane index (-1: observers without a shown owner), how many rows of observers it has.
    let rowCounts: [Int: Int]
    /// Per observer, in the timeline's order: its lane index (-1 when none) and row.
    let observerRows: [(lane: Int, row: Int)]
    /// An observer's index in the timeline by id.
    let observerIndex: ObserverIndex

    init(_ timeline: Timeline) {
        order = Self.laneOrder(timeline)
        var laneOf: [UInt64: Int] = [:]
        for (index, entry) in order.enumerated() { laneOf[entry.lane.owner] = index }
        var packers: [Int: RowPacker] = [:]
        var observerRows: [(lane: Int, row: Int)] = []
        observerRows.reserveCapacity(timeline.observers.count)
        let observerIndex = ObserverIndex(timeline.observers.map(\.id))
        for observer in timeline.observers {
            let lane = observer.owner.flatMap { laneOf[$0] } ?? -1
            let row = packers[lane, default: RowPacker()].place(observer.interval)
            observerRows.append((lane, row))
        }
        self.laneOf = laneOf
        self.rowCounts = packers.mapValues(\.count)
        self.observerRows = observerRows
        self.observerIndex = observerIndex
    }

    /// Owners shown: screens, owners of observers or findings, and the hosts of those.
    private static func laneOrder(_ timeline: Timeline) -> [(lane: Timeline.Lane, depth: Int)] {
        var shown = Set(timeline.lanes.filter(\.isScreen).map(\.owner))
        shown.formUnion(timeline.observers.compactMap(\.owner))
        shown.formUnion(timeline.groups.flatMap(\.findings).compactMap(\.ownerID))
        let byID = Dictionary(timeline.lanes.map { ($0.owner, $0) }, uniquingKeysWith: { first, _ in first })
        for id in Array(shown) {
            var seen: Set<UInt64> = [id]
            var next = byID[id]?.host
            while let host = next, seen.insert(host).inserted {
                shown.insert(host)
                next = byID[host]?.host
            }
        }
        var children: [UInt64: [Timeline.Lane]] = [:]
        var roots: [Timeline.Lane] = []
        for lane in timeline.lanes where shown.contains(lane.owner) {
            if let host = lane.host, shown.contains(host), host != lane.owner {
                children[host, default: []].append(lane)
            } else {
                roots.append(lane)
            }
        }
        var order: [(Timeline.Lane, Int)] = []
        var visited: Set<UInt64> = []
        // Depth first with a stack of its own: a chain of attachments as long as the trace
        // overflowed the thread's stack when each level was a call.
        func visit(_ lane: Timeline.Lane, _ depth: Int) {
            var pending = [(lane, depth)]
            while let (lane, depth) = pending.popLast() {
                guard visited.insert(lane.owner).inserted else { continue }
                order.append((lane, depth))
                for child in (children[lane.owner] ?? []).reversed() { pending.append((child, depth + 1)) }
            }
        }
        for root in roots { visit(root, 0) }
        // Attachment cycles have no root: show what is left at the top level.
        for lane in timeline.lanes where shown.contains(lane.owner) && !visited.contains(lane.owner) { visit(lane, 0) }
        return order
    }
}

/// Packs intervals into rows where none overlaps the next: each interval, given in order of start,
/// goes to the lowest-numbered row whose last interval ended by its start, or to a new row.
///
/// Because starts never decrease, a row that is free for one interval stays free for every
/// later one until it is given out: rows move from `busy` (by end) to `free` (by number) once,
/// so placing *n* intervals takes O(*n* log *n*) however many rows are open at once (searching the
/// rows in turn took 5.7 s for 100 000 observers alive together on one screen).
struct RowPacker {
    /// Rows given out so far.
    private(set) var count = 0
    private var busy = MinHeap<BusyRow>()
    private var free = MinHeap<Int>()
    private var lastStart: UInt64 = 0

    private struct BusyRow: Comparable {
        var end: UInt64
        var row: Int
        static func < (a: BusyRow, b: BusyRow) -> Bool { (a.end, a.row) < (b.end, b.row) }
    }

    /// The row of `interval`, whose start is not before any interval placed earlier.
    mutating func place(_ interval: Timeline.Interval) -> Int {
        assert(interval.start >= lastStart, "intervals are placed in order of start")
        lastStart = interval.start
        while let top = busy.min, top.end <= interval.start {
            _ = busy.popMin()
            free.push(top.row)
        }
        let row: Int
        if let reused = free.popMin() {
            row = reused
        } else {
            row = count
            count += 1
        }
        busy.push(BusyRow(end: interval.end, row: row))
        return row
    }
}

/// A binary min-heap.
struct MinHeap<Element: Comparable> {
    private var items: [Element] = []

    var min: Element? { items.first }
    var isEmpty: Bool { items.isEmpty }

    mutating func push(_ element: Element) {
        items.append(element)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child] < items[parent] else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popMin() -> Element? {
        guard let first = items.first else { return nil }
        let last = items.removeLast()
        guard !items.isEmpty else { return first }
        items[0] = last
        var parent = 0
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < items.count && items[left] < items[smallest] { smallest = left }
            if right < items.count && items[right] < items[smallest] { smallest = right }
            guard smallest != parent else { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return first
    }
}

/// Observers' indexes in the timeline by id, looked up once per delivery: an array by id while the
/// ids are dense (the bus numbers observers from 1), a dictionary otherwise (a damaged or
/// hand-made trace), so memory stays linear in observers either way. Hashing every delivery's
/// observer id was a twentieth of `timeline`'s instructions.
struct ObserverIndex {
    private var dense: [Int32] = []
    private var sparse: [UInt64: Int] = [:]

    /// `ids` in timeline order; an id given twice is found at its last index, as a dictionary filled in order gives.
    init(_ ids: [UInt64]) {
        let largest = ids.max() ?? 0
        if largest < UInt64(ids.count) &* 4 &+ 1024, ids.count < Int(Int32.max) {
            dense = Array(repeating: -1, count: Int(largest) + 1)
            for (index, id) in ids.enumerated() { dense[Int(id)] = Int32(index) }
        } else {
            sparse.reserveCapacity(ids.count)
            for (index, id) in ids.enumerated() { sparse[id] = index }
        }
    }

    subscript(id: UInt64) -> Int? {
        if !dense.isEmpty {
            guard id < UInt64(dense.count) else { return nil }
            let index = dense[Int(id)]
            return index < 0 ? nil : Int(index)
        }
        return sparse[id]
    }
}

extension Timeline {
    /// The page's title: the session, and the window when there is one.
    var title: String {
        "\(session.name) — session \(session.id)" + (windowText.map { " — " + $0 } ?? "")
    }

    /// When the window asked for holds none of the session's events, a line saying so.
    var emptyWindowNote: String? {
        guard let windowText, start >= end else { return nil }
        return "the window (\(windowText)) holds no event: session \(session.id) ends at seq \(end - 1)"
    }

    /// The window asked for, in words: "seq 40–80", "from seq 40" or "up to seq 80".
    var windowText: String? {
        guard let window else { return nil }
        switch (window.lowerBound, window.upperBound) {
        case (0, let until): return "up to seq \(until)"
        case (let since, UInt64(Int64.max)...): return "from seq \(since)"
        case (let since, let until): return "seq \(since)–\(until)"
        }
    }
}
