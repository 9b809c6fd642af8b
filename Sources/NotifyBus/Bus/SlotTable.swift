/// A bus's observer lists by message type: open addressing on the type's identity,
/// hashed by one multiply of its address.
///
/// `Dictionary` hashes an `ObjectIdentifier` with seeded SipHash: ~90 of the ~230
/// instructions a lookup cost, and every add and every post looks up its type. Keys
/// are type metadata addresses, never 0, so 0 marks an empty bucket. Nothing is ever
/// removed: a bus keeps each type's list for its life. Used under the bus's lock only.
struct SlotTable {
    private var keys: [UInt]
    private var values: [ObserverList?]
    /// `64 - log2(capacity)`: the hash's top bits pick the bucket.
    private var shift: UInt
    private(set) var count = 0

    init() {
        keys = Array(repeating: 0, count: 8)
        values = Array(repeating: nil, count: 8)
        shift = 61
    }

    @inline(__always)
    private func bucket(_ key: UInt) -> Int {
        // Fibonacci hashing: the multiply spreads the aligned low bits into the top ones.
        Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    /// The list of the type `key`, if there is one.
    @inline(__always)
    subscript(key: ObjectIdentifier) -> ObserverList? {
        let key = UInt(bitPattern: key), mask = keys.count - 1
        var index = bucket(key)
        while true {
            let stored = keys[index]
            if stored == key { return values[index] }
            if stored == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// Adds the list of the type `key`, which has none yet.
    mutating func insert(_ slots: ObserverList, for key: ObjectIdentifier) {
        if (count + 1) * 2 > keys.count { grow() }
        place(UInt(bitPattern: key), slots)
        count += 1
    }

    /// Every list, in no particular order.
    var lists: [ObserverList] { values.compactMap { $0 } }

    private mutating func place(_ key: UInt, _ slots: ObserverList) {
        let mask = keys.count - 1
        var index = bucket(key)
        while keys[index] != 0 { index = (index + 1) & mask }
        keys[index] = key
        values[index] = slots
    }

    private mutating func grow() {
        let old = zip(keys, values).filter { $0.0 != 0 }
        keys = Array(repeating: 0, count: keys.count * 2)
        values = Array(repeating: nil, count: keys.count)
        shift -= 1
        for (key, slots) in old { place(key, slots!) }
    }
}
