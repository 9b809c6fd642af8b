/// A map from ids to values for the comparison's hot paths, with ``IDCounter``'s layout: an array
/// indexed by id while the ids stay dense, a dictionary for the rest.
///
/// The bus numbers observers from a counter and a trace numbers its strings from 1, so these ids
/// are dense and an array lookup replaces a hash per delivery. The array grows only while it stays
/// proportional to the ids held: an id far past them (a damaged or hostile trace) goes to the
/// dictionary, so memory stays linear in the ids held whatever their values.
struct IDMap<Value> {
    private var dense: [Value?] = []
    private var sparse: [UInt64: Value] = [:]
    /// Ids with a value, dense or not: what bounds the array's growth.
    private var held = 0

    @inline(__always) subscript(id: UInt64) -> Value? {
        get { id < UInt64(dense.count) ? dense[Int(id)] : (sparse.isEmpty ? nil : sparse[id]) }
        set {
            if id < UInt64(dense.count) {
                let index = Int(id)
                if dense[index] == nil { if newValue != nil { held += 1 } } else if newValue == nil { held -= 1 }
                dense[index] = newValue
            } else {
                setSlowly(id, newValue)
            }
        }
    }

    private mutating func setSlowly(_ id: UInt64, _ value: Value?) {
        guard let value else {
            if sparse.removeValue(forKey: id) != nil { held -= 1 }
            return
        }
        if id < UInt64(4 * held + IDCounter.slack) {
            dense.append(contentsOf: repeatElement(nil, count: max(Int(id) + 1, 2 * dense.count) - dense.count))
            for (moved, value) in sparse where moved < UInt64(dense.count) {
                dense[Int(moved)] = value
                sparse[moved] = nil
            }
            held += 1
            dense[Int(id)] = value
            return
        }
        if sparse.updateValue(value, forKey: id) == nil { held += 1 }
    }

    /// The array's length: what the ids held cost in memory beside the dictionary.
    var denseCapacity: Int { dense.count }
}
