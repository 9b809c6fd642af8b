#if canImport(ObjectiveC)
import Foundation
#endif

/// The owners a recording session knows: one id per object identity, where an identity
/// is an address (`ObjectIdentifier`) and a generation.
///
/// An identity holds from the first time the object is seen until its release is
/// observed (a post, a sweep, or a new object at its address); in particular it
/// holds while the object runs its `deinit`, where Swift's weak references to it
/// already read `nil`: `removeObserver(self)` in a `deinit` finds the observers the
/// object added. A new object at a released one's address starts the next generation
/// of that address, with a new id; the old one is reported released first.
///
/// Pure data, used under its session's lock; the session records what it reports.
/// It never releases the last strong reference to an object it loads: callers hand
/// the live objects they load out of the lock (``sweep(alive:)``).
struct OwnerRegistry {
    struct Record {
        let id: UInt64
        /// How many identities this address has had before this one.
        let generation: UInt32
        let ref: WeakObject
        /// Whether the session reported the owner released; the record stays until a
        /// later sweep, so that a `deinit` running at that moment still finds it.
        var released = false
    }

    /// What ``register(_:)`` found.
    struct Registration {
        let id: UInt64
        /// The owner is new: record that it was registered.
        let isNew: Bool
        /// The id of a released owner whose address the object now has, whose release
        /// is not yet reported: report it before the new one.
        let replaced: UInt64?
    }

    private(set) var records: [ObjectIdentifier: Record] = [:]
    private var nextID: UInt64 = 1
    /// The released owners already reported, so that each is reported once.
    private var reported: Set<UInt64> = []
    private var sweepThreshold = 64

    /// Whether the table has grown enough since the last sweep to be swept again.
    var sweepDue: Bool { records.count > sweepThreshold }

    /// The identity of `object`, which the caller holds (it may be running its `deinit`),
    /// registering it on first sight.
    mutating func register(_ object: AnyObject) -> Registration {
        let key = ObjectIdentifier(object)
        var generation: UInt32 = 0
        var replaced: UInt64?
        if let known = records[key] {
            if known.ref.object != nil || Self.isDeinitializing(object) {
                // The caller holds `object`, so a live record at its address is this object;
                // a dead one is this object too when the object is itself being deinitialized.
                return Registration(id: known.id, isNew: false, replaced: nil)
            }
            generation = known.generation &+ 1
            if reported.insert(known.id).inserted { replaced = known.id }
        }
        let id = nextID
        nextID += 1
        records[key] = Record(id: id, generation: generation, ref: WeakObject(object: object))
        return Registration(id: id, isNew: true, replaced: replaced)
    }

    /// The id of `object` if it is registered, without registering it; `nil` for an
    /// object that was never seen, or a new object at a released one's address.
    func id(of object: AnyObject) -> UInt64? {
        guard let known = records[ObjectIdentifier(object)] else { return nil }
        if known.ref.object != nil || Self.isDeinitializing(object) { return known.id }
        return nil
    }

    /// The generation of the identity `object` has now, if it is registered.
    func generation(of object: AnyObject) -> UInt32? {
        guard let known = records[ObjectIdentifier(object)],
              known.ref.object != nil || Self.isDeinitializing(object) else { return nil }
        return known.generation
    }

    /// Notes that `id`'s release was observed.
    /// - Returns: Whether this is the first time, that is whether to report it.
    mutating func markReleased(_ id: UInt64) -> Bool {
        reported.insert(id).inserted
    }

    /// Whether `id`'s release was reported.
    func isReleased(_ id: UInt64) -> Bool { reported.contains(id) }

    /// Finds the released owners, in id order, and drops the records reported released
    /// at an earlier sweep (or by a post) so that the table stays proportional to the
    /// live owners.
    /// - Parameter alive: Receives the live owners loaded on the way, for the caller to
    ///   release after unlocking: the last reference may run a `deinit` that calls a bus.
    /// - Returns: The owners newly found released, to report.
    mutating func sweep(alive: inout [AnyObject]) -> [UInt64] {
        var newlyReleased: [UInt64] = []
        var kept: [ObjectIdentifier: Record] = [:]
        var live = 0
        for (key, record) in records.sorted(by: { $0.value.id < $1.value.id }) {
            if let object = record.ref.object {
                alive.append(object)
                kept[key] = record
                live += 1
            } else if reported.insert(record.id).inserted {
                // Kept one sweep longer: its object may be running its deinit right now.
                var record = record
                record.released = true
                kept[key] = record
                newlyReleased.append(record.id)
            } else if !record.released {
                // Reported by a post since the last sweep: kept until the next one, as above.
                var record = record
                record.released = true
                kept[key] = record
            }
        }
        records = kept
        sweepThreshold = max(64, kept.count + max(live, 32))
        return newlyReleased
    }

    /// Whether `object`, which the caller holds, is running its `deinit`: a weak
    /// reference formed to it now reads `nil`.
    static func isDeinitializing(_ object: AnyObject) -> Bool {
        #if canImport(ObjectiveC)
        // The Objective-C runtime traps when a weak reference is formed to an object
        // being deallocated: take an NSObject whose weak record is gone to be this one.
        if object is NSObject { return true }
        #endif
        return WeakObject(object: object).object == nil
    }
}
