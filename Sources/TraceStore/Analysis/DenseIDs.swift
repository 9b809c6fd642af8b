/// Per-id counts for the folds' hot paths: an array indexed by id while the ids stay dense,
/// a dictionary for the rest.
///
/// The bus numbers observers, owners and posts from counters starting at 1, so a session's
/// ids are dense and an array lookup replaces a hash per delivery (the largest cost of
/// `stats` and `leaks` after SQLite's own, `BENCHMARKS.md`). The array grows only while
/// it stays proportional to the ids held: an id far past them (a damaged or hostile trace,
/// ids from another numbering) goes to the dictionary, so memory stays linear in the ids
/// held whatever their values.
struct IDCounter {
    private var dense: [Int] = []
    private var sparse: [UInt64: Int] = [:]
    /// Ids with a count, dense or not: what bounds the array's growth.
    private var held = 0

    /// The array never grows past this many slots ahead of the ids it holds.
    static let slack = 4_096

    /// Adds one to `id`'s count.
    @inline(__always) mutating func increment(_ id: UInt64) {
        if id < UInt64(dense.count) {
            let index = Int(id)
            if dense[index] == 0 { held += 1 }
            dense[index] &+= 1
        } else {
            incrementSlowly(id)
        }
    }

    private mutating func incrementSlowly(_ id: UInt64) {
        if id < UInt64(4 * held + Self.slack) {
            grow(toHold: id)
            if dense[Int(id)] == 0 { held += 1 }
            dense[Int(id)] += 1
            return
        }
        sparse[id, default: 0] += 1
        if sparse[id] == 1 { held += 1 }
    }

    /// Grows the array to hold `id`, moving in the ids the dictionary held below it.
    private mutating func grow(toHold id: UInt64) {
        dense.append(contentsOf: repeatElement(0, count: max(Int(id) + 1, 2 * dense.count) - dense.count))
        for (moved, count) in sparse where moved < UInt64(dense.count) {
            dense[Int(moved)] = count
            sparse[moved] = nil
        }
    }

    /// The array's length: what the ids held cost in memory beside the dictionary.
    var denseCapacity: Int { dense.count }

    /// `id`'s count, 0 if it has none.
    func count(of id: UInt64) -> Int {
        id < UInt64(dense.count) ? dense[Int(id)] : sparse[id] ?? 0
    }

    /// Every id with a count, and its count: the dense ones in id order, then the rest.
    var counts: [(id: UInt64, count: Int)] {
        var result: [(id: UInt64, count: Int)] = []
        result.reserveCapacity(held)
        for (index, count) in dense.enumerated() where count > 0 { result.append((UInt64(index), count)) }
        for (id, count) in sparse { result.append((id, count)) }
        return result
    }
}

/// A set of ids for the folds' hot paths, with ``IDCounter``'s layout: an array of flags
/// while the ids stay dense, a `Set` for the rest.
struct IDFlags {
    /// Per id, the generation it was inserted in: an id is in the set when its stamp is the
    /// current ``generation``. Emptying the set starts a new generation, in constant time: the
    /// leaks walk empties its set whenever an owner goes, and clearing the whole array each time
    /// would cost observers × owners gone, faster than the trace grows.
    private var dense: [UInt32] = []
    private var generation: UInt32 = 1
    private var sparse = Set<UInt64>()
    /// How many ids are in the set.
    private(set) var count = 0
    /// How many inserts have added an id, ever: what bounds the array's growth. Not `count`,
    /// which falls as ids are removed or the set is emptied: a set that is emptied often (the
    /// leaks walk's) would then send every id past the first few thousand to the `Set`.
    private var inserts = 0

    var isEmpty: Bool { count == 0 }

    @inline(__always) func contains(_ id: UInt64) -> Bool {
        id < UInt64(dense.count) ? dense[Int(id)] == generation : !sparse.isEmpty && sparse.contains(id)
    }

    mutating func insert(_ id: UInt64) {
        if id >= UInt64(dense.count) {
            guard id < UInt64(4 * inserts + IDCounter.slack) else {
                if sparse.insert(id).inserted { count += 1; inserts += 1 }
                return
            }
            dense.append(contentsOf: repeatElement(0, count: max(Int(id) + 1, 2 * dense.count) - dense.count))
            let moved = sparse.filter { $0 < UInt64(dense.count) }
            for id in moved { dense[Int(id)] = generation }
            sparse.subtract(moved)
        }
        if dense[Int(id)] != generation { dense[Int(id)] = generation; count += 1; inserts += 1 }
    }

    mutating func remove(_ id: UInt64) {
        if id < UInt64(dense.count) {
            if dense[Int(id)] == generation { dense[Int(id)] = 0; count -= 1 }
        } else if sparse.remove(id) != nil {
            count -= 1
        }
    }

    /// The array's length: what the ids held cost in memory beside the `Set`.
    var denseCapacity: Int { dense.count }

    /// Empties the set, keeping the array's room: a new generation (the array is cleared only
    /// when the generations run out, once in four billion).
    mutating func removeAll() {
        guard count > 0 else { return }
        if generation == .max {
            for index in dense.indices { dense[index] = 0 }
            generation = 1
        } else {
            generation += 1
        }
        sparse.removeAll()
        count = 0
    }
}
