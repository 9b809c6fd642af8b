import NotifyBus

/// Renders events so that equal behaviour compares equal whatever the ids were.
///
/// Owners are named by label and order of first appearance among owners of
/// that label (`Login#2` is the second Login); observers by owner, message and
/// order among that owner's observers of that message
/// (`Login#1.keyboardWillShow#1`); posts by message and order among posts of
/// that message (`keyboardWillShow#3`). Adding an unrelated observer or post
/// therefore renames nothing else. Call sites and times are left out: moving
/// code by a line is not a change of behaviour.
struct Canonicalizer {
    private var owners: [UInt64: String] = [:]
    private var ownerCounts: [String: Int] = [:]
    private var observers: [UInt64: String] = [:]
    private var observerCounts: [String: Int] = [:]
    /// Post names by id, in two generations of ``postWindow`` posts: deliveries and child
    /// posts refer to recent posts, and the map must not grow with the trace.
    private var posts: [UInt64: String] = [:]
    private var olderPosts: [UInt64: String] = [:]
    private var postCounts: [String: Int] = [:]
    /// How many posts a generation holds: a delivery or child post more than one to two
    /// windows after its post names it `?`, as it names a post never recorded.
    static let postWindow = 65_536

    private func post(_ id: UInt64?) -> String {
        guard let id else { return "?" }
        return posts[id] ?? olderPosts[id] ?? "?"
    }

    /// The lifecycle steps that something outside the app did: the user navigating,
    /// turning the device, typing; the system launching the app.
    static let stimulusPhases: Set<LifecyclePhase> = [.launch, .push, .pop, .present, .dismiss, .selectTab,
                                                      .keyboard, .wait, .rotate, .transitionCancelled, .touchReceived]

    /// Whether an event is a stimulus (what the outside world did) rather than a reaction.
    static func isStimulus(_ event: RecordedEvent) -> Bool {
        switch event.kind {
        case .posted:
            return event.origin == .stimulus
        case .lifecycle:
            return event.phase.map(stimulusPhases.contains) ?? false
        case .actionRouted:
            return true
        default:
            return false
        }
    }

    /// The canonical text of `event`, or `nil` for bookkeeping events that are not compared.
    mutating func render(_ e: RecordedEvent) -> String? {
        switch e.kind {
        case .sessionStarted, .sessionEnded:
            return nil
        case .ownerRegistered:
            guard let id = e.owner else { return nil }
            let label = e.note ?? e.detail ?? "?"
            ownerCounts[label, default: 0] += 1
            owners[id] = "\(label)#\(ownerCounts[label]!)"
            return nil
        case .observerAdded:
            guard let id = e.observer else { return nil }
            let base = "\(owner(e.owner)).\(e.message ?? "*")"
            observerCounts[base, default: 0] += 1
            observers[id] = "\(base)#\(observerCounts[base]!)"
            let kind = e.observerKind.map { $0 == .token ? "" : " \($0)" + (e.capture.map { " \($0)" } ?? "") } ?? ""
            return "add \(observers[id]!)\(kind)" + (e.sender.map { " sender \(owner($0))" } ?? "")
        case .observerRemoved:
            if let id = e.observer, let name = observers[id] {
                return "remove \(name) (\(e.detail ?? "?"))"
            }
            return "remove nothing: \(owner(e.owner)).\(e.message ?? "?") (\(e.detail ?? "?"))"
        case .posted:
            guard let id = e.post else { return nil }
            let message = e.message ?? "?"
            postCounts[message, default: 0] += 1
            let name = "\(message)#\(postCounts[message]!)"
            if posts.count >= Self.postWindow { (olderPosts, posts) = (posts, [:]) }
            posts[id] = name
            let parent = e.parent.map { " parent \(post($0))" } ?? ""
            return "post \(name) \(e.detail ?? "?")\(parent) \(e.payload ?? "")"
        case .enqueued:
            // Whether a delivery is queued depends on the thread that posted, not on
            // the code under test; the delivery that follows is compared.
            return nil
        case .delivered, .skipped:
            let verb = e.kind == .delivered ? "deliver" : "skip"
            return "\(verb) \(post(e.post)) -> \(e.observer.flatMap { observers[$0] } ?? "?")"
        case .lifecycle:
            return "\(owner(e.owner)) \(e.detail ?? "?")" + (e.note.map { " \($0)" } ?? "")
        case .actionRouted:
            let tried = e.triedResponders.map(owner).joined(separator: ",")
            return "action \(e.detail ?? "?") from \(owner(e.sender)) tried \(tried) -> \(e.owner.map(owner) ?? "nobody")"
        case .bridgeRejected:
            return "rejected \(e.message ?? "?"): \(e.note ?? "")"
        case .ownerAttached:
            return "attach \(owner(e.owner)) to \(owner(e.host))"
        case .ownerReleased:
            // When the bus notices a plain release depends on where the allocator puts
            // the next object (an address reused, a sweep due), not on the code under
            // test, so only a release kept back by a strong block is compared.
            guard let retainer = e.retainedBy else { return nil }
            return "released \(owner(e.owner)) kept alive by \(observers[retainer] ?? "?")"
        case .trapped:
            return "trap \(post(e.post)) -> \(e.observer.flatMap { observers[$0] } ?? "?")"
                + " (\(e.trapReason.map(\.rawValue) ?? "?"))"
        }
    }

    private func owner(_ id: UInt64?) -> String {
        guard let id else { return "-" }
        return owners[id] ?? "#\(id)"
    }
}
