import NotifyBus
import TraceStore

/// A step of the session that the timeline marks on its axis: a container operation ("pop Login",
/// "present Sheet") or something the application did ("launch", "keyboard show"), so that what
/// the lanes show can be read against what the user did.
struct TimelineStep: Equatable {
    var seq: UInt64
    var label: String

    /// The lifecycle phases that are steps: what moves screens, and the application's own events.
    /// A screen's callbacks (`viewWillAppear`…) are drawn on its lane already.
    static let phases: Set<LifecyclePhase> = [
        .setRoot, .push, .pop, .present, .dismiss, .selectTab, .transitionCancelled, .addChild, .removeChild,
        .launch, .rotate, .keyboard,
    ]

    /// The application's phases, labelled by their detail's first word ("keyboard show") rather than their owner.
    static let applicationPhases: Set<LifecyclePhase> = [.launch, .rotate, .keyboard]

    /// The steps of `session` within `window`, in order. Reads the session's lifecycle events only
    /// (by the kind index on a finished trace); `labels` names owners by id.
    static func read(_ reader: TraceReader, session: Int64, window: ClosedRange<UInt64>?,
                     labels: [UInt64: String]) throws -> [TimelineStep] {
        var steps: [TimelineStep] = []
        let filter = EventFilter(kinds: [.lifecycle], since: window?.lowerBound,
                                 until: window.map { $0.upperBound == UInt64(Int64.max) ? nil : $0.upperBound } ?? nil)
        try reader.forEachEvent(session: session, filter: filter) { event in
            guard let phase = event.phase, phases.contains(phase) else { return true }
            steps.append(TimelineStep(seq: event.seq, label: label(phase, owner: event.owner.flatMap { labels[$0] },
                                                                   detail: event.note)))
            return true
        }
        return steps
    }

    /// "pop Login", "transitionCancelled Login"; "keyboard show", "rotate landscapeLeft", "launch" for the application.
    static func label(_ phase: LifecyclePhase, owner: String?, detail: String?) -> String {
        if applicationPhases.contains(phase) {
            // "show 336.0" → show; "device landscapeLeft interface landscapeRight" → landscapeLeft.
            let words = detail?.split(separator: " ") ?? []
            let word = (words.first == "device" ? words.dropFirst().first : words.first).map(String.init)
            return [phase.rawValue, word].compactMap { $0 }.joined(separator: " ")
        }
        return [phase.rawValue, owner].compactMap { $0 }.joined(separator: " ")
    }
}
