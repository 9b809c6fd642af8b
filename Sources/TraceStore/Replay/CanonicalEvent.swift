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
    /// Observers' canonical names by id, with their number in ``names``.
    private var observers = IDMap<(text: String, name: Int32)>()
    private var observerCounts: [String: Int] = [:]
    /// The names both sides of a comparison number alike, so that a delivery is compared as integers.
    let names: CanonicalNames
    /// This side's interned strings: rows name them by id.
    let strings: SideStrings
    /// A post's canonical name, kept as its parts: most posts are named once and never printed.
    private struct PostName {
        /// The message's number in ``names``.
        let message: Int32
        let ordinal: Int
    }
    /// Post names by id, in two generations of ``postWindow`` posts: deliveries and child
    /// posts refer to recent posts, and the map must not grow with the trace.
    private var posts = IDMap<PostName>(), olderPosts = IDMap<PostName>()
    /// Posts so far by message, indexed by the message's number in ``names``.
    private var postCounts: [Int] = []
    /// How many posts a generation holds: a delivery or child post more than one to two
    /// windows after its post names it `?`, as it names a post never recorded.
    static let postWindow = 65_536

    init(names: CanonicalNames = CanonicalNames(), strings: SideStrings) {
        self.names = names
        self.strings = strings
    }

    /// The post named last, always one of ``posts``: a post's deliveries follow it, so most
    /// lookups are this one and need no hash.
    private var lastPost: (id: UInt64, name: PostName)?

    @inline(__always) private func postName(_ id: UInt64?) -> PostName? {
        guard let id else { return nil }
        if let lastPost, lastPost.id == id { return lastPost.name }
        return posts[id] ?? olderPosts[id]
    }

    private func writePost(_ id: UInt64?, into out: inout [UInt8]) {
        guard let name = postName(id) else { return out.append(UInt8(ascii: "?")) }
        names.writePost(message: name.message, ordinal: name.ordinal, into: &out)
    }

    /// A delivery or skip in canonical form, or `nil` for any other event: what ``render(_:into:)``
    /// would write for it, as integers numbered by ``names``.
    ///
    /// Inlined, as ``isStimulus(_:)``: called on the comparison's copy in place, not on a copy of it
    /// (a copy of the canonicalizer per event was ~3% of a comparison).
    @inline(__always) func delivery<R: ComparedRow>(_ e: R) -> CanonicalDelivery? {
        guard e.kind == .delivered || e.kind == .skipped else { return nil }
        let post = postName(e.id(.post))
        return CanonicalDelivery(skipped: e.kind == .skipped, message: post?.message ?? CanonicalDelivery.unknown,
                                 ordinal: post?.ordinal ?? 0,
                                 observer: e.id(.observer).flatMap { observers[$0]?.name } ?? CanonicalDelivery.unknown)
    }

    /// The lifecycle steps that something outside the app did: the user navigating,
    /// turning the device, typing; the system launching the app.
    static let stimulusPhases: Set<LifecyclePhase> = [.launch, .push, .pop, .present, .dismiss, .selectTab,
                                                      .keyboard, .wait, .rotate, .transitionCancelled, .touchReceived]

    /// Whether an event is a stimulus (what the outside world did) rather than a reaction:
    /// a post of origin `stimulus`, a lifecycle step of a ``stimulusPhases`` phase, a routed action.
    @inline(__always) func isStimulus<R: ComparedRow>(_ event: R) -> Bool {
        switch event.kind {
        case .posted:
            return event.stringID(.detail).map(strings.isStimulusOrigin) ?? false
        case .lifecycle:
            return event.stringID(.detail).map(strings.isStimulusPhase) ?? false
        case .actionRouted:
            return true
        default:
            return false
        }
    }

    /// Messages' and details' numbers in ``names`` by this side's string id: a post's message is
    /// looked up, not hashed as text.
    private var messageNumbers = NumbersByID(), detailNumbers = NumbersByID()

    /// The number in ``names`` of the message with string id `id`: of its text, or of `?` when it has none.
    private mutating func messageNumber(_ id: Int64?) -> Int32 { messageNumbers.number(id, strings: strings, names: names) }

    /// The number in ``names`` of the detail with string id `id` (a NULL or missing detail is `?`).
    private mutating func detailNumber(_ id: Int64?) -> Int32 { detailNumbers.number(id, strings: strings, names: names) }

    /// Names a post (its message's next ordinal) and gives its canonical line but the payload, as
    /// integers numbered by ``names``; `nil` for a post without an id, which is not compared.
    /// What ``render(_:into:)`` writes for a post is this, then the payload.
    mutating func post<R: ComparedRow>(_ e: R) -> CanonicalPost? {
        guard let id = e.id(.post) else { return nil }
        let message = messageNumber(e.stringID(.message))
        let index = Int(message)
        if index >= postCounts.count { postCounts.append(contentsOf: repeatElement(0, count: index + 1 - postCounts.count)) }
        postCounts[index] += 1
        let name = PostName(message: message, ordinal: postCounts[index])
        if posts.count >= Self.postWindow {
            // The older generation's room holds the next: posts numbered on from this one.
            swap(&olderPosts, &posts)
            posts.removeAll(rebasingAt: id)
        }
        posts[id] = name
        lastPost = (id, name)
        var post = CanonicalPost(message: message, ordinal: name.ordinal, detail: detailNumber(e.stringID(.detail)))
        if let parent = e.id(.parent) {
            post.hasParent = true
            if let parentName = postName(parent) { (post.parentMessage, post.parentOrdinal) = (parentName.message, parentName.ordinal) }
        }
        return post
    }

    /// The text of a string column, `nil` for NULL or an id the trace's table lacks.
    private func text<R: ComparedRow>(_ e: R, _ column: EventColumn) -> String? { e.stringID(column).flatMap(strings.text) }

    /// Writes the canonical text of `event` into `out` (emptied first) and returns `true`, or
    /// returns `false` for bookkeeping events that are not compared.
    ///
    /// The row is read in place, its strings by id: a comparison of equal traces renders each event
    /// into a reused buffer and compares bytes, and makes a `String` only of what it reports.
    /// What a kind reads is what ``EventCursor`` reads for it into a ``RecordedEvent``.
    mutating func render<R: ComparedRow>(_ e: R, into out: inout [UInt8]) -> Bool {
        out.removeAll(keepingCapacity: true)
        switch e.kind {
        case .sessionStarted, .sessionEnded:
            return false
        case .ownerRegistered:
            guard let id = e.id(.owner) else { return false }
            let label = text(e, .note) ?? text(e, .detail) ?? "?"
            ownerCounts[label, default: 0] += 1
            owners[id] = "\(label)#\(ownerCounts[label]!)"
            return false
        case .observerAdded:
            guard let id = e.id(.observer) else { return false }
            let base = "\(owner(e.id(.owner))).\(text(e, .message) ?? "*")"
            observerCounts[base, default: 0] += 1
            let name = "\(base)#\(observerCounts[base]!)"
            observers[id] = (name, names.number(name))
            out.append("add "); out.append(name)
            // Version-1 traces, which do not record an observer's kind, had typed tokens only.
            let kind = text(e, .detail).flatMap(ObserverKind.init(rawValue:)) ?? .token
            if kind != .token {
                out.append(" "); out.append(kind.rawValue)
                if let capture = text(e, .note).flatMap(BlockCapture.init(rawValue:)) { out.append(" "); out.append(capture.rawValue) }
            }
            if let sender = e.id(.sender) { out.append(" sender "); writeOwner(sender, into: &out) }
        case .observerRemoved:
            if let id = e.id(.observer), let name = observers[id]?.text {
                out.append("remove "); out.append(name)
            } else {
                out.append("remove nothing: "); writeOwner(e.id(.owner), into: &out); out.append(".")
                out.append(text(e, .message) ?? "?")
            }
            out.append(" ("); out.append(text(e, .detail) ?? "?"); out.append(")")
        case .posted:
            guard let post = post(e) else { return false }
            names.write(post, into: &out)
            e.appendPayload(to: &out)
        case .enqueued:
            // Whether a delivery is queued depends on the thread that posted, not on
            // the code under test; the delivery that follows is compared.
            return false
        case .delivered, .skipped:
            names.write(delivery(e)!, into: &out)
        case .lifecycle:
            writeOwner(e.id(.owner), into: &out); out.append(" "); out.append(text(e, .detail) ?? "?")
            if let note = text(e, .note) { out.append(" "); out.append(note) }
        case .actionRouted:
            out.append("action "); out.append(text(e, .detail) ?? "?"); out.append(" from "); writeOwner(e.id(.sender), into: &out)
            out.append(" tried ")
            for (index, responder) in e.triedResponders.enumerated() {
                if index > 0 { out.append(",") }
                writeOwner(responder, into: &out)
            }
            out.append(" -> ")
            if let handler = e.id(.owner) { writeOwner(handler, into: &out) } else { out.append("nobody") }
        case .bridgeRejected:
            out.append("rejected "); out.append(text(e, .message) ?? "?"); out.append(": "); out.append(text(e, .note) ?? "")
        case .ownerAttached:
            // The host is stored in the parent column.
            out.append("attach "); writeOwner(e.id(.owner), into: &out); out.append(" to "); writeOwner(e.id(.parent), into: &out)
        case .ownerReleased:
            // When the bus notices a plain release depends on where the allocator puts
            // the next object (an address reused, a sweep due), not on the code under
            // test, so only a release kept back by a strong block is compared; the block
            // observer that keeps the owner alive is stored in the observer column.
            guard let retainer = e.id(.observer) else { return false }
            out.append("released "); writeOwner(e.id(.owner), into: &out); out.append(" kept alive by ")
            out.append(observers[retainer]?.text ?? "?")
        case .trapped:
            out.append("trap "); writePost(e.id(.post), into: &out); out.append(" -> ")
            out.append(e.id(.observer).flatMap { observers[$0]?.text } ?? "?")
            out.append(" ("); out.append(text(e, .detail).flatMap(TrapReason.init(rawValue:)).map(\.rawValue) ?? "?"); out.append(")")
        }
        return true
    }

    /// An owner as ``writeOwner(_:into:)`` writes it, as a `String` (for an observer's name).
    private func owner(_ id: UInt64?) -> String {
        var bytes: [UInt8] = []
        writeOwner(id, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    private func writeOwner(_ id: UInt64?, into out: inout [UInt8]) {
        guard let id else { return out.append(UInt8(ascii: "-")) }
        if let name = owners[id] { out.append(name) } else { out.append(UInt8(ascii: "#")); out.append(decimal: id) }
    }
}

/// A delivery or skip in canonical form: the post by message and ordinal, the observer by its
/// canonical name, each name numbered by the ``CanonicalNames`` both sides share. Two are equal
/// exactly when their canonical lines are: an ordinal is digits after the last `#`, and a name
/// has one number.
struct CanonicalDelivery: Equatable {
    /// A post or observer never recorded: rendered `?`.
    static let unknown: Int32 = -1
    var skipped: Bool
    var message: Int32
    var ordinal: Int
    var observer: Int32
}

/// A post's canonical line but its payload, as integers numbered by the ``CanonicalNames`` both
/// sides share: `post MESSAGE#ORDINAL DETAIL[ parent MESSAGE#ORDINAL] `. Two equal ones write the
/// same bytes; two that differ are compared by their lines.
struct CanonicalPost: Equatable {
    var message: Int32
    var ordinal: Int
    var detail: Int32
    var hasParent = false
    /// The parent post's message, ``CanonicalDelivery/unknown`` for a post never recorded (`?`).
    var parentMessage = CanonicalDelivery.unknown
    var parentOrdinal = 0
}

/// Names numbered in order of first use, shared by the two sides of a comparison.
final class CanonicalNames {
    private var numbers: [String: Int32] = [:]
    /// The names' UTF-8, by number: what lines are written from.
    private var texts: [[UInt8]] = []

    /// The number of `name`, given on first use.
    func number(_ name: String) -> Int32 {
        if let number = numbers[name] { return number }
        let number = Int32(texts.count)
        texts.append(Array(name.utf8))
        numbers[name] = number
        return number
    }

    func writePost(message: Int32, ordinal: Int, into out: inout [UInt8]) {
        guard message != CanonicalDelivery.unknown else { return out.append(UInt8(ascii: "?")) }
        out.append(contentsOf: texts[Int(message)])
        out.append(UInt8(ascii: "#"))
        out.append(decimal: UInt64(ordinal))
    }

    /// Appends the canonical line of `post` up to its payload, which follows.
    func write(_ post: CanonicalPost, into out: inout [UInt8]) {
        out.append("post "); writePost(message: post.message, ordinal: post.ordinal, into: &out); out.append(" ")
        out.append(contentsOf: texts[Int(post.detail)])
        if post.hasParent { out.append(" parent "); writePost(message: post.parentMessage, ordinal: post.parentOrdinal, into: &out) }
        out.append(" ")
    }

    /// Appends the canonical line of `delivery`.
    func write(_ delivery: CanonicalDelivery, into out: inout [UInt8]) {
        out.append(delivery.skipped ? "skip " : "deliver ")
        writePost(message: delivery.message, ordinal: delivery.ordinal, into: &out)
        out.append(" -> ")
        if delivery.observer == CanonicalDelivery.unknown { out.append(UInt8(ascii: "?")) } else { out.append(contentsOf: texts[Int(delivery.observer)]) }
    }
}

extension [UInt8] {
    /// Appends `text`'s UTF-8 bytes.
    @inline(__always) mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends `value` in decimal.
    mutating func append(decimal value: UInt64) {
        if value < 10 { return append(UInt8(ascii: "0") + UInt8(value)) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)   // 24 bytes: room for UInt64.max's 20 digits
        Swift.withUnsafeMutableBytes(of: &digits) { raw in
            var v = value, start = raw.count
            while v != 0 {
                start -= 1
                raw[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: v % 10)
                v /= 10
            }
            append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[start...]))
        }
    }
}

/// One column's numbers in the shared names by a side's string id, and the number of `?` for a
/// NULL or unknown id.
private struct NumbersByID {
    private var byID = IDMap<Int32>()
    private var unknown: Int32?

    mutating func number(_ id: Int64?, strings: SideStrings, names: CanonicalNames) -> Int32 {
        if let id, let number = byID[UInt64(bitPattern: id)] { return number }
        guard let id, let text = strings.text(id) else {
            if let unknown { return unknown }
            let number = names.number("?")
            unknown = number
            return number
        }
        let number = names.number(text)
        byID[UInt64(bitPattern: id)] = number
        return number
    }
}
