/// A set of ids kept as sorted, disjoint closed ranges.
///
/// The bus numbers posts and observers from counters, so a session's ids arrive
/// nearly in order and the set stays a handful of ranges however many ids it
/// holds: memory grows with the gaps, not with the ids.
struct IDSet {
    private var lower: [UInt64] = []
    private var upper: [UInt64] = []

    /// The number of ranges held.
    var rangeCount: Int { lower.count }

    func contains(_ id: UInt64) -> Bool {
        if let last = upper.last, id > last { return false }
        let index = firstRange(endingAtOrAfter: id)
        return index < lower.count && lower[index] <= id
    }

    mutating func insert(_ id: UInt64) {
        // The common case: the next id of the newest range.
        if let last = upper.last {
            if id == last &+ 1 && id != 0 { upper[upper.count - 1] = id; return }
            if id > last { lower.append(id); upper.append(id); return }
        } else {
            lower.append(id); upper.append(id); return
        }
        let index = firstRange(endingAtOrAfter: id)
        if index < lower.count && lower[index] <= id { return }
        let joinsPrevious = index > 0 && upper[index - 1] &+ 1 == id
        let joinsNext = index < lower.count && id &+ 1 == lower[index]
        switch (joinsPrevious, joinsNext) {
        case (true, true):
            upper[index - 1] = upper[index]
            lower.remove(at: index)
            upper.remove(at: index)
        case (true, false):
            upper[index - 1] = id
        case (false, true):
            lower[index] = id
        case (false, false):
            lower.insert(id, at: index)
            upper.insert(id, at: index)
        }
    }

    /// The index of the first range whose upper end is at least `id`.
    private func firstRange(endingAtOrAfter id: UInt64) -> Int {
        var low = 0, high = upper.count
        while low < high {
            let middle = (low + high) / 2
            if upper[middle] < id { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
