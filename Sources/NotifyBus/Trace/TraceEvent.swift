/// One entry of a bus's event log.
///
/// Every change of observable state — an owner seen for the first time, an
/// observer added or removed, a post, a delivery, a lifecycle step — is an
/// event. Events carry a per-bus sequence number that increases by one with
/// each event, so that the state at any point is a fold over the events before it.
public struct TraceEvent: Sendable {
    /// The position of the event in its bus's log, starting at 1.
    public var seq: UInt64
    /// Nanoseconds since the bus's clock origin.
    public var time: UInt64
    /// What happened.
    public var kind: Kind

    /// The event at `seq`, `time` nanoseconds after the bus's clock origin.
    // Inlinable: the recorder builds one per post on the posting thread, in another module, and the
    // call (with its copy of `kind` through the value witnesses) was a tenth of a recorded post's time.
    @inlinable
    public init(seq: UInt64, time: UInt64, kind: Kind) {
        self.seq = seq
        self.time = time
        self.kind = kind
    }

    /// What an event records.
    public enum Kind: Sendable {
        /// An object that owns observers (or sends posts) was seen for the first time.
        case ownerRegistered(owner: UInt64, typeName: String, label: String)
        /// An observer was added. `message` is `nil` for an observation of every message;
        /// `capture` is set for block observers; `handler` names the selector (or the
        /// handler a scenario gave), so that one handler registered twice can be recognised.
        case observerAdded(observer: UInt64, message: String?, owner: UInt64?, sender: UInt64?, callSite: CallSite,
                           kind: ObserverKind = .token, capture: BlockCapture? = nil, handler: String? = nil)
        /// An observer was removed, or a removal found nothing to remove.
        ///
        /// `observer` is `nil` for a removal by owner or by owner and name that matched
        /// nothing (its `message` is the name asked for, `nil` for a removal by owner);
        /// it names an observer no longer registered for a second removal of a token.
        /// `callSite` is where an explicit removal was called; `nil` for token releases and gone owners.
        case observerRemoved(observer: UInt64?, message: String?, owner: UInt64?, reason: RemovalReason, callSite: CallSite?)
        /// `owner` lives inside `host`: a helper or view attached to its screen, a child to its container.
        case ownerAttached(owner: UInt64, host: UInt64)
        /// The bus found `owner` released by the program. `retainedBy` is `nil` when it was
        /// deallocated; otherwise the block observer (captured `strong`) that alone keeps it
        /// alive: in a real app it would never deinit.
        case ownerReleased(owner: UInt64, retainedBy: UInt64?)
        /// A delivery that would have crashed a real app; the handler was not called.
        case trapped(post: UInt64, observer: UInt64, reason: TrapReason)
        /// A message was posted. The payload is encoded by the sink, off the posting thread.
        case posted(post: UInt64, message: any BusMessage, sender: UInt64?, parent: UInt64?, origin: PostOrigin)
        /// A message was handed to an observer.
        case delivered(post: UInt64, observer: UInt64)
        /// A delivery was skipped because the observer's owner is gone.
        case skipped(post: UInt64, observer: UInt64)
        /// A lifecycle step of an owner, or a container operation.
        case lifecycle(owner: UInt64, phase: LifecyclePhase, detail: String?)
        /// An action travelled up the responder chain.
        case actionRouted(action: String, sender: UInt64, tried: [UInt64], handler: UInt64?)
        /// A foreign notification could not be turned into a typed message.
        case bridgeRejected(name: String, reason: String)
        /// A message was queued for an observer that runs elsewhere: a `@MainActor`
        /// handler posted to off the main actor, or an `async` handler. The
        /// ``delivered(post:observer:)`` (or skip, or trap) follows when it runs;
        /// the time between the two is the queueing delay.
        case enqueued(post: UInt64, observer: UInt64)
    }
}

/// Where `observe` was called: `#fileID` and `#line`, or a path into a scenario file.
public struct CallSite: Hashable, Sendable, CustomStringConvertible {
    /// `#fileID` (`Module/File.swift`), or a scenario file's name and the path of the
    /// observer in it.
    public var file: String
    /// `#line`; 0 for a path into a scenario file.
    public var line: Int

    /// The call site `file`:`line`.
    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `file:line`, or just `file` when the line is 0 (a scenario path).
    public var description: String { line == 0 ? file : "\(file):\(line)" }
}

/// Why an observer stopped being registered.
public enum RemovalReason: String, Sendable, CaseIterable, Codable {
    /// ``Bus/remove(_:)`` or a removal by owner and message.
    case explicit
    /// ``Bus/removeAll(owner:)``.
    case ownerRemoved
    /// The last copy of the ``ObservationToken`` was released.
    case tokenReleased
    /// A post found the observer's owner deallocated.
    case ownerGone
    /// A removal by owner in Foundation's form (`removeObserver(self)`), which removes
    /// the owner's selector observers only.
    case ownerSelectors
}

/// Whether a post came from outside the code under test or from inside it.
public enum PostOrigin: String, Sendable, CaseIterable, Codable {
    /// The outside world: the system, the user, a test driver. Replay re-posts these.
    case stimulus
    /// The code under test, outside any delivery.
    case app
    /// A handler, during another post (the event has a parent).
    case reaction
}
