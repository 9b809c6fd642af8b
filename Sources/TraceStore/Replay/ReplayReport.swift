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
    /// - Complexity: O(*n*) time and memory in the events compared.
    public static func compare(expected: [RecordedEvent], actual: [RecordedEvent], contextSize: Int = 3,
                               ignoringLifecycle: Bool = false, replayError: String? = nil) -> ReplayReport {
        let compared: (RecordedEvent) -> Bool = { !ignoringLifecycle || ($0.kind != .lifecycle && $0.kind != .actionRouted) }
        let left = lines(expected.filter(compared)), right = lines(actual.filter(compared))
        var divergence: Divergence?
        let leftStimuli = left.filter(\.isStimulus), rightStimuli = right.filter(\.isStimulus)
        if let index = firstDifference(leftStimuli.map(\.text), rightStimuli.map(\.text)) {
            divergence = Divergence(
                inStimuli: true,
                context: Array(leftStimuli[max(0, index - contextSize)..<index]),
                expected: Array(leftStimuli[index..<min(leftStimuli.count, index + contextSize + 2)]),
                actual: Array(rightStimuli[index..<min(rightStimuli.count, index + contextSize + 2)]))
        } else if let index = firstDifference(left.map(\.text), right.map(\.text)) {
            divergence = Divergence(
                inStimuli: false,
                context: Array(left[max(0, index - contextSize)..<index]),
                expected: Array(left[index..<min(left.count, index + contextSize + 2)]),
                actual: Array(right[index..<min(right.count, index + contextSize + 2)]))
        }
        // Reactions on one side only, as multisets, in each side's order.
        var unmatched: [String: Int] = [:]
        for line in right where !line.isStimulus { unmatched[line.text, default: 0] += 1 }
        var missing: [Line] = []
        for line in left where !line.isStimulus {
            if let count = unmatched[line.text], count > 0 { unmatched[line.text] = count - 1 } else { missing.append(line) }
        }
        var added: [Line] = []
        for line in right.reversed() where !line.isStimulus {
            if let count = unmatched[line.text], count > 0 {
                unmatched[line.text] = count - 1
                added.append(line)
            }
        }
        return ReplayReport(expectedCount: left.count, actualCount: right.count, divergence: divergence,
                            addedReactions: added.reversed(), missingReactions: missing, replayError: replayError)
    }

    private static func lines(_ events: [RecordedEvent]) -> [Line] {
        var canonicalizer = Canonicalizer()
        return events.compactMap { event in
            canonicalizer.render(event).map { Line(seq: event.seq, text: $0, isStimulus: Canonicalizer.isStimulus(event)) }
        }
    }

    private static func firstDifference(_ a: [String], _ b: [String]) -> Int? {
        for index in 0..<min(a.count, b.count) where a[index] != b[index] { return index }
        return a.count == b.count ? nil : min(a.count, b.count)
    }
}
