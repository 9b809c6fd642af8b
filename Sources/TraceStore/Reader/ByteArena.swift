/// Bytes appended at one address, read through ``baseAddress`` plus an offset; an append may move
/// them (offsets stay valid), ``removeAll()`` keeps the memory. A comparison's batch holds walked
/// posts' payloads in one; `tracectl events` holds its observers' rendered parts in another.
package struct ByteArena: ~Copyable {
    package private(set) var baseAddress: UnsafeMutablePointer<UInt8>?
    package private(set) var count = 0
    private var capacity = 0

    package init() {}

    package var isEmpty: Bool { count == 0 }

    package mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        if count + bytes.count > capacity {
            let grown = max(4_096, 2 * capacity, count + bytes.count)
            let new = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            if let baseAddress {
                new.update(from: baseAddress, count: count)
                baseAddress.deallocate()
            }
            (baseAddress, capacity) = (new, grown)
        }
        if let base = bytes.baseAddress, bytes.count > 0 { (baseAddress! + count).update(from: base, count: bytes.count) }
        count += bytes.count
    }

    package mutating func removeAll() { count = 0 }

    deinit { baseAddress?.deallocate() }
}
