/// A map from ids to values for the comparison's hot paths, with ``IDCounter``'s layout: an array
/// indexed by id (less a base) while the ids stay dense, a dictionary for the rest.
///
/// The bus numbers observers and posts from counters and a trace numbers its strings from 1, so
/// these ids are dense and an array lookup replaces a hash per event. The array grows only while
/// it stays proportional to the ids held: an id far past them, or below the base (a damaged or
/// hostile trace), goes to the dictionary, so memory stays linear in the ids held whatever their values.
struct IDMap<Value> {
    private var dense: [Value?] = []
    private var sparse: [UInt64: Value] = [:]
    /// The id of the array's first slot.
    private var base: UInt64 = 0
    /// How many ids have a value, dense or not: what bounds the array's growth.
    private(set) var count = 0

    @inline(__always) subscript(id: UInt64) -> Value? {
        get {
            let slot = id &- base
            return slot < UInt64(dense.count) ? dense[Int(slot)] : (sparse.isEmpty ? nil : sparse[id])
        }
        set {
            let slot = id &- base
            if slot < UInt64(dense.count) {
                let index = Int(slot)
                if dense[index] == nil { if newValue != nil { count += 1 } } else if newValue == nil { count -= 1 }
                dense[index] = newValue
            } else {
                setSlowly(id, newValue)
            }
        }
    }

    private mutating func setSlowly(_ id: UInt64, _ value: Value?) {
        guard let value else {
            if sparse.removeValue(forKey: id) != nil { count -= 1 }
            return
        }
        let slot = id &- base
        if slot < UInt64(4 * count + IDCounter.slack) {
            dense.append(contentsOf: repeatElement(nil, count: max(Int(slot) + 1, 2 * dense.count) - dense.count))
            for (moved, value) in sparse where moved &- base < UInt64(dense.count) {
                dense[Int(moved &- base)] = value
                sparse[moved] = nil
            }
            count += 1
            dense[Int(slot)] = value
            return
        }
        if sparse.updateValue(value, forKey: id) == nil { count += 1 }
    }

    /// Empties the map, keeping the array's room, with `base` as the id of its first slot from now on.
    mutating func removeAll(rebasingAt base: UInt64) {
        for index in dense.indices where dense[index] != nil { dense[index] = nil }
        sparse.removeAll()
        count = 0
        self.base = base
    }

    /// The array's length: what the ids held cost in memory beside the dictionary.
    var denseCapacity: Int { dense.count }
}
