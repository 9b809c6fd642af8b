/// The observers of one message (or the wildcards) on one bus, in registration order.
///
/// Removal leaves a hole (`nil`) so that it is O(1) and keeps the order (removing the
/// last one shortens the array instead, with any holes before it); the array is
/// compacted once holes outnumber observers. A post snapshots the array by retaining
/// it; a change while a post holds it copies it first (copy on write). One per message
/// ever observed on the bus, kept for the bus's life so that observers can point at it.
@usableFromInline
final class ObserverList: @unchecked Sendable {
    // @unchecked: `items`, `live` and the observers' `slot` are read and written only
    // under the bus's lock; posts take a copy of `items`.
    /// The message's name in the trace.
    let name: String
    /// Its bus's handle: how a token, through its observer, finds the bus.
    let handle: BusHandle
    @exclusivity(unchecked) var items: [Observer?] = []
    @exclusivity(unchecked) var live = 0

    init(name: String, handle: BusHandle) {
        self.name = name
        self.handle = handle
    }

    func append(_ observer: Observer) {
        observer.slot = items.count
        items.append(observer)
        live += 1
    }

    func remove(_ observer: Observer) {
        if observer.slot == items.count - 1 {
            // The last one, as when an observer is added and soon removed: no hole,
            // and the holes before it go too, so the list needs no compaction.
            items.removeLast()
            while let last = items.last, last == nil { items.removeLast() }
        } else {
            items[observer.slot] = nil
        }
        live -= 1
        if live == 0 {
            items.removeAll(keepingCapacity: true)
        } else if items.count >= 16 && live * 2 < items.count {
            items = items.filter { $0 != nil }
            for (index, item) in items.enumerated() { item!.slot = index }
        }
    }
}
