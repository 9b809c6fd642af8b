import Foundation

/// The outcome of comparing a replay (or a second trace) with a recorded trace.
public struct ReplayReport: Sendable {
    /// One canonical event with where it stood.
    public struct Line: Sendable, Hashable {
        /// The event's `seq` in its own trace.
        public var seq: UInt64
        public var text: String
        public var isStimulus: Bool
    }

    /// Where the two sides first part.
    public struct Divergence: Sendable {
        /// `true` when the stimuli themselves differ: the two runs were not given the same input.
        public var inStimuli: Bool
        /// Events both sides share just before the divergence.
        public var context: [Line]
        /// The recorded side from the divergence on (a few events).
        public var expected: [Line]
        /// The replayed side from the divergence on (a few events).
        public var actual: [Line]
    }

    /// The number of compared events on each side.
    public var expectedCount: Int
    public var actualCount: Int
    /// `nil` when the two sides are equal.
    public var divergence: Divergence?
    /// Reactions present only in the replay, in its order.
    public var addedReactions: [Line]
    /// Reactions present only in the recording, in its order.
    public var missingReactions: [Line]
    /// Set when the replay could not run to the end (a step that no longer applies).
    public var replayError: String?

    /// Whether replay and recording behave the same.
    public var isEqual: Bool { divergence == nil && replayError == nil }

    /// A −/+ diff of the first divergence, like a failing TCA `TestStore`.
    public var diffText: String {
        guard let divergence else { return replayError.map { "replay stopped: \($0)" } ?? "equal" }
        var lines: [String] = []
        lines.append(divergence.inStimuli
            ? "the stimuli differ: the two runs were not given the same input"
            : "first divergence in the reactions")
        for line in divergence.context { lines.append("  \(line.text)") }
        for line in divergence.expected { lines.append("− \(line.text)   (seq \(line.seq))") }
        for line in divergence.actual { lines.append("+ \(line.text)   (seq \(line.seq))") }
        lines.append("\(missingReactions.count) reaction(s) missing, \(addedReactions.count) added")
        if let replayError { lines.append("replay stopped: \(replayError)") }
        return lines.joined(separator: "\n")
    }

    /// Compares two event sequences of one session each.
    ///
    /// - Parameters:
    ///   - ignoringLifecycle: Leave lifecycle steps and routed actions out of both sides:
    ///     a replay into a Swift model re-posts the recorded stimuli but has no
    ///     lifecycle model to redo screen transitions.
    /// - Complexity: O(*n*) time in the events compared; see ``compareStreams(expected:actual:contextSize:ignoringLifecycle:replayError:)`` for memory.
    public static func compare(expected: [RecordedEvent], actual: [RecordedEvent], contextSize: Int = 3,
                               ignoringLifecycle: Bool = false, replayError: String? = nil) -> ReplayReport {
        var left = ArrayEvents(expected.makeIterator()), right = ArrayEvents(actual.makeIterator())
        return compareStreams(expected: &left, actual: &right, contextSize: contextSize,
                              ignoringLifecycle: ignoringLifecycle, replayError: replayError)
    }

    /// Compares two event streams, each read once, in step.
    ///
    /// Memory does not grow with the length of the streams: what is held is the last
    /// few lines (the context), the stimuli of one side not yet matched by the other,
    /// and the reactions found on one side only so far, which for equal behaviour is
    /// nothing beyond a local reordering. Ids are renamed as ``compare(expected:actual:contextSize:ignoringLifecycle:replayError:)`` does.
    ///
    /// `comparingPostsUnrendered: false` renders every post before comparing it (what the tests
    /// check the unrendered comparison against).
    ///
    /// The sources are generic rather than closures: a closure's result, a large optional
    /// struct, was copied and destroyed through reabstraction thunks on every event.
    static func compareStreams<L: ComparedEvents, R: ComparedEvents>(
        expected: inout L, actual: inout R, contextSize: Int = 3, ignoringLifecycle: Bool = false,
        replayError: String? = nil, comparingPostsUnrendered: Bool = true) throws(L.Failure) -> ReplayReport
        where R.Failure == L.Failure {
        let names = CanonicalNames()
        var leftSide = Side(ignoringLifecycle: ignoringLifecycle, names: names, strings: expected.strings)
        var rightSide = Side(ignoringLifecycle: ignoringLifecycle, names: names, strings: actual.strings)
        var all = Aligner(contextSize: contextSize, names: names), stimuli = Aligner(contextSize: contextSize, names: names)
        var reactions = ReactionBalance()
        var leftDone = false, rightDone = false
        while !leftDone || !rightDone {
            let hasLeft = leftDone ? false : try leftSide.advance(&expected)
            let hasRight = rightDone ? false : try rightSide.advance(&actual)
            if !hasLeft { leftDone = true }
            if !hasRight { rightDone = true }
            // Deliveries, nearly all of a large trace, are compared as integers and rendered only
            // when the comparison keeps them.
            if hasLeft && hasRight, let delivery = leftSide.delivery, delivery == rightSide.delivery,
               all.isInStep && reactions.isBalanced {
                all.matchedInStep(seq: leftSide.seq, delivery: delivery)
                continue
            }
            // So are posts that are reactions (most of the rest), with their payloads' bytes: what
            // the rendered lines would decide when nothing is pending.
            if comparingPostsUnrendered && hasLeft && hasRight && !leftSide.isStimulus && !rightSide.isStimulus
                && leftSide.hasSamePost(as: rightSide) && all.isInStep && reactions.isBalanced {
                all.matchedInStep(seq: leftSide.seq, post: leftSide.post!, taking: &leftSide.payload)
                continue
            }
            if hasLeft { leftSide.render() }
            if hasRight { rightSide.render() }
            // The common case of equal behaviour, decided on the rendered bytes: the same
            // reaction on both sides, nothing pending, no earlier line of that text waiting
            // on either side; or the same stimulus on both sides with no stimulus pending.
            // Only the contexts remember it.
            if hasLeft && hasRight && leftSide.isStimulus == rightSide.isStimulus && all.isInStep
                && Self.sameBytes(leftSide.bytes, rightSide.bytes) {
                if !leftSide.isStimulus {
                    if reactions.isBalanced || !reactions.holds(leftSide.bytes) {
                        all.matchedInStep(seq: leftSide.seq, isStimulus: false, taking: &leftSide.bytes)
                        continue
                    }
                } else if stimuli.isInStep {
                    stimuli.matchedInStep(seq: leftSide.seq, isStimulus: true, bytes: leftSide.bytes)
                    all.matchedInStep(seq: leftSide.seq, isStimulus: true, taking: &leftSide.bytes)
                    continue
                }
            }
            // Lines are made only for what keeps them: the aligners until they have shown all
            // they show, the stimuli, and reactions left waiting for the other side.
            if !all.isFull {
                all.add(left: hasLeft ? leftSide.line : nil, right: hasRight ? rightSide.line : nil)
            }
            if hasLeft && leftSide.isStimulus { stimuli.queue(left: leftSide.line) }
            if hasRight && rightSide.isStimulus { stimuli.queue(right: rightSide.line) }
            if leftDone { stimuli.leftEnded() }
            if rightDone { stimuli.rightEnded() }
            if hasLeft && hasRight && !leftSide.isStimulus && !rightSide.isStimulus && Self.sameBytes(leftSide.bytes, rightSide.bytes)
                && reactions.isBalanced {
                continue   // equal, with lines pending on the way to the context
            }
            if hasLeft && !leftSide.isStimulus { reactions.left(leftSide.bytes) { leftSide.line } }
            if hasRight && !rightSide.isStimulus { reactions.right(rightSide.bytes) { rightSide.line } }
        }
        let divergence = stimuli.divergence(inStimuli: true) ?? all.divergence(inStimuli: false)
        return ReplayReport(expectedCount: leftSide.count, actualCount: rightSide.count, divergence: divergence,
                            addedReactions: reactions.added, missingReactions: reactions.missing, replayError: replayError)
    }

    /// One side of a comparison: its events rendered to canonical lines, one at a time into
    /// a reused buffer; a ``Line`` is made only of what the comparison keeps.
    private struct Side {
        let ignoringLifecycle: Bool
        var canonicalizer: Canonicalizer
        var count = 0
        /// The current event's canonical text (once ``render()`` ran, for a delivery), its `seq`,
        /// and whether it is a stimulus.
        var bytes: [UInt8] = []
        var seq: UInt64 = 0
        var isStimulus = false
        /// The current event when it is a delivery or a skip, whose text is not rendered until asked for.
        var delivery: CanonicalDelivery?
        /// The current event when it is a post, whose text is not rendered until asked for, and its payload.
        var post: CanonicalPost?
        var payload: [UInt8] = []
        private var rendered = true

        init(ignoringLifecycle: Bool, names: CanonicalNames, strings: SideStrings) {
            self.ignoringLifecycle = ignoringLifecycle
            canonicalizer = Canonicalizer(names: names, strings: strings)
        }

        /// Moves to the next compared event; `false` after the last.
        mutating func advance<S: ComparedEvents>(_ source: inout S) throws(S.Failure) -> Bool {
            while let event = try source.next() {
                if ignoringLifecycle && (event.kind == .lifecycle || event.kind == .actionRouted) { continue }
                if let delivery = canonicalizer.delivery(event) {
                    self.delivery = delivery
                    post = nil
                    rendered = false
                } else if event.kind == .posted, let post = canonicalizer.post(event) {
                    self.post = post
                    payload.removeAll(keepingCapacity: true)
                    event.appendPayload(to: &payload)
                    delivery = nil
                    rendered = false
                } else {
                    guard canonicalizer.render(event, into: &bytes) else { continue }
                    delivery = nil
                    post = nil
                    rendered = true
                }
                count += 1
                seq = event.seq
                isStimulus = canonicalizer.isStimulus(event)
                return true
            }
            return false
        }

        /// Renders the current event's text into ``bytes`` if it is not there yet.
        mutating func render() {
            guard !rendered else { return }
            bytes.removeAll(keepingCapacity: true)
            if let delivery {
                canonicalizer.names.write(delivery, into: &bytes)
            } else if let post {
                canonicalizer.names.write(post, into: &bytes)
                bytes.append(contentsOf: payload)
            }
            rendered = true
        }

        /// Whether the current events of both sides are posts with the same line, told without
        /// rendering either.
        func hasSamePost(as other: Side) -> Bool {
            guard let post, let theirs = other.post else { return false }
            return post == theirs && ReplayReport.sameBytes(payload, other.payload)
        }

        /// The current event as a line.
        var line: Line { Line(seq: seq, text: String(decoding: bytes, as: UTF8.self), isStimulus: isStimulus) }
    }

    /// The last few lines both sides shared, oldest first, kept as bytes in reused slots.
    private struct ContextRing {
        let size: Int
        let names: CanonicalNames
        /// A line as its bytes, or as a delivery or a post (its payload in `bytes`) rendered only
        /// if the context is shown.
        private struct Slot {
            var seq: UInt64
            var isStimulus: Bool
            var bytes: [UInt8]
            var delivery: CanonicalDelivery?
            var post: CanonicalPost?
        }
        private var slots: [Slot] = []
        /// The oldest slot once all are used.
        private var oldest = 0

        init(size: Int, names: CanonicalNames) { (self.size, self.names) = (size, names) }

        mutating func add(seq: UInt64, isStimulus: Bool, bytes: [UInt8]) {
            guard size > 0 else { return }
            if slots.count < size {
                slots.append(Slot(seq: seq, isStimulus: isStimulus, bytes: bytes))
                return
            }
            slots[oldest].seq = seq
            slots[oldest].isStimulus = isStimulus
            slots[oldest].bytes.removeAll(keepingCapacity: true)
            slots[oldest].bytes.append(contentsOf: bytes)
            slots[oldest].delivery = nil
            slots[oldest].post = nil
            oldest = (oldest + 1) % size
        }

        /// Adds a line by swapping its bytes into the slot: `bytes` is left holding the slot's old buffer.
        mutating func add(seq: UInt64, isStimulus: Bool, taking bytes: inout [UInt8]) {
            guard size > 0, slots.count == size else { return add(seq: seq, isStimulus: isStimulus, bytes: bytes) }
            slots[oldest].seq = seq
            slots[oldest].isStimulus = isStimulus
            swap(&slots[oldest].bytes, &bytes)
            slots[oldest].delivery = nil
            slots[oldest].post = nil
            oldest = (oldest + 1) % size
        }

        mutating func add(seq: UInt64, delivery: CanonicalDelivery) {
            guard size > 0 else { return }
            if slots.count < size {
                slots.append(Slot(seq: seq, isStimulus: false, bytes: [], delivery: delivery))
                return
            }
            slots[oldest].seq = seq
            slots[oldest].isStimulus = false
            slots[oldest].delivery = delivery
            slots[oldest].post = nil
            oldest = (oldest + 1) % size
        }

        /// Adds a post that is a reaction, its payload swapped into the slot as ``add(seq:isStimulus:taking:)`` does.
        mutating func add(seq: UInt64, post: CanonicalPost, taking payload: inout [UInt8]) {
            guard size > 0 else { return }
            // The slot the line goes to: the next one while the ring fills, then the oldest.
            let index = slots.count < size ? slots.count : oldest
            add(seq: seq, isStimulus: false, taking: &payload)
            slots[index].post = post
        }

        mutating func add(_ line: Line) { add(seq: line.seq, isStimulus: line.isStimulus, bytes: Array(line.text.utf8)) }

        var lines: [Line] {
            (slots[oldest...] + slots[..<oldest]).map { slot in
                var bytes = slot.bytes
                if let delivery = slot.delivery {
                    bytes.removeAll()
                    names.write(delivery, into: &bytes)
                } else if let post = slot.post {
                    bytes.removeAll()
                    names.write(post, into: &bytes)
                    bytes.append(contentsOf: slot.bytes)
                }
                return Line(seq: slot.seq, text: String(decoding: bytes, as: UTF8.self), isStimulus: slot.isStimulus)
            }
        }
    }

    /// Walks two line sequences in step and keeps where they first part, with context.
    private struct Aligner {
        let contextSize: Int
        var context: ContextRing
        var pendingLeft: [Line] = [], pendingRight: [Line] = []
        var leftOver = false, rightOver = false
        var diverged = false
        var expected: [Line] = [], actual: [Line] = []
        var divergedContext: [Line] = []

        init(contextSize: Int, names: CanonicalNames) {
            self.contextSize = max(0, contextSize)
            context = ContextRing(size: self.contextSize, names: names)
        }

        /// Whether a line both sides have in step would only become context: nothing pending,
        /// or the sides parted and both have shown all the lines they show.
        var isInStep: Bool {
            diverged ? isFull : pendingLeft.isEmpty && pendingRight.isEmpty
        }

        /// Whether the sides parted and both have shown all the lines they show: lines change nothing.
        var isFull: Bool { diverged && expected.count >= shown && actual.count >= shown }

        /// A line both sides had in step (``isInStep``): what `add` does with two equal lines.
        mutating func matchedInStep(seq: UInt64, isStimulus: Bool, bytes: [UInt8]) {
            if !diverged { context.add(seq: seq, isStimulus: isStimulus, bytes: bytes) }
        }

        /// The same, taking `bytes` rather than copying them: `bytes` is left holding a buffer
        /// to render into (its contents are not the line's).
        mutating func matchedInStep(seq: UInt64, isStimulus: Bool, taking bytes: inout [UInt8]) {
            if !diverged { context.add(seq: seq, isStimulus: isStimulus, taking: &bytes) }
        }

        /// A delivery both sides had in step: kept unrendered.
        mutating func matchedInStep(seq: UInt64, delivery: CanonicalDelivery) {
            if !diverged { context.add(seq: seq, delivery: delivery) }
        }

        /// A post both sides had in step (a reaction): kept unrendered, its payload taken (see
        /// ``matchedInStep(seq:isStimulus:taking:)``).
        mutating func matchedInStep(seq: UInt64, post: CanonicalPost, taking payload: inout [UInt8]) {
            if !diverged { context.add(seq: seq, post: post, taking: &payload) }
        }

        /// The lines shown from the divergence on, per side.
        var shown: Int { contextSize + 2 }

        mutating func add(left: Line?, right: Line?) {
            if let left { queue(left: left) }
            if let right { queue(right: right) }
            if left == nil { leftEnded() }
            if right == nil { rightEnded() }
        }

        mutating func queue(left: Line) {
            if diverged { if expected.count < shown { expected.append(left) }; return }
            pendingLeft.append(left)
            match()
        }

        mutating func queue(right: Line) {
            if diverged { if actual.count < shown { actual.append(right) }; return }
            pendingRight.append(right)
            match()
        }

        mutating func leftEnded() { leftOver = true; match() }
        mutating func rightEnded() { rightOver = true; match() }

        private mutating func match() {
            guard !diverged else { return }
            var index = 0
            while index < pendingLeft.count && index < pendingRight.count {
                if pendingLeft[index].text != pendingRight[index].text {
                    diverge(at: index)
                    return
                }
                index += 1
            }
            // The matched prefix becomes context.
            if index > 0 {
                for line in pendingLeft[0..<index] { context.add(line) }
                pendingLeft.removeFirst(index)
                pendingRight.removeFirst(index)
            }
            // One side ended with lines left on the other: they part there.
            if (leftOver && !pendingRight.isEmpty) || (rightOver && !pendingLeft.isEmpty) { diverge(at: 0) }
        }

        private mutating func diverge(at index: Int) {
            for line in pendingLeft[0..<index] { context.add(line) }
            diverged = true
            divergedContext = context.lines
            expected = Array(pendingLeft[index...].prefix(shown))
            actual = Array(pendingRight[index...].prefix(shown))
            pendingLeft = []
            pendingRight = []
        }

        func divergence(inStimuli: Bool) -> Divergence? {
            guard diverged else { return nil }
            return Divergence(inStimuli: inStimuli, context: divergedContext, expected: expected, actual: actual)
        }
    }

    /// Reactions as multisets: what one side has that the other has not (yet).
    ///
    /// A line matches the oldest unmatched line of the same text on the other side,
    /// so what is left at the end is the latest occurrences, in each side's order.
    /// A canonical line's bytes as a dictionary key, hashed as one block.
    private struct LineKey: Hashable {
        let bytes: [UInt8]

        init(_ bytes: [UInt8]) { self.bytes = bytes }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }

        static func == (a: LineKey, b: LineKey) -> Bool { ReplayReport.sameBytes(a.bytes, b.bytes) }
    }

    /// Whether two lines' bytes are equal, compared as one block.
    @inline(__always) static func sameBytes(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { x in b.withUnsafeBytes { y in memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0 } }
    }

    private struct ReactionBalance {
        /// Keyed by the lines' bytes, so that the comparison can ask about the line it has
        /// rendered without making a `String` of it.
        var leftOnly: [LineKey: [Line]] = [:], rightOnly: [LineKey: [Line]] = [:]

        var isBalanced: Bool { leftOnly.isEmpty && rightOnly.isEmpty }

        /// Whether either side waits for a line with these bytes: if not, the same line on both
        /// sides changes nothing.
        func holds(_ bytes: [UInt8]) -> Bool { leftOnly[LineKey(bytes)] != nil || rightOnly[LineKey(bytes)] != nil }

        mutating func left(_ bytes: [UInt8], _ line: () -> Line) { Self.balance(bytes, line, against: &rightOnly, into: &leftOnly) }
        mutating func right(_ bytes: [UInt8], _ line: () -> Line) { Self.balance(bytes, line, against: &leftOnly, into: &rightOnly) }

        /// Matches a line with the oldest of the same bytes waiting on the other side, or leaves it waiting.
        private static func balance(_ bytes: [UInt8], _ line: () -> Line, against other: inout [LineKey: [Line]],
                                    into own: inout [LineKey: [Line]]) {
            let key = LineKey(bytes)
            if let index = other.index(forKey: key) {
                if other.values[index].count == 1 {
                    other.remove(at: index)
                } else {
                    other.values[index].removeFirst()
                }
            } else {
                own[key, default: []].append(line())
            }
        }

        var missing: [Line] { leftOnly.values.joined().sorted { $0.seq < $1.seq } }
        var added: [Line] { rightOnly.values.joined().sorted { $0.seq < $1.seq } }
    }
}
