import PropertyBased
import Testing
@testable import TraceStore

/// The comparison's id map (an array from a base while ids are dense, a dictionary past them)
/// against `Dictionary`: the same values and count for ids dense, sparse, huge, below the base,
/// set, overwritten, removed, and across the empties that start a post generation.
@Suite struct IDMapTests {
    enum Op: Sendable { case set(UInt64, Int), remove(UInt64), rebase(UInt64) }

    static let ids = Gen<UInt64>.oneOf(
        Gen.uint64(in: 0...300),
        Gen.uint64(in: 4_000...20_000),
        Gen.uint64(in: 0...UInt64.max),
        Gen.always(UInt64.max))

    static let ops = Gen<Op>.oneOf(
        zip(ids, Gen.int(in: 0...9)).map { Op.set($0.0, $0.1) },
        zip(ids, Gen.int(in: 0...9)).map { Op.set($0.0, $0.1) },
        ids.map { Op.remove($0) },
        ids.map { Op.rebase($0) }).array(of: 0...400)

    @Test func valuesMatchADictionary() async {
        await propertyCheck(count: iterations(default: 200), input: Self.ops) { ops in
            var map = IDMap<Int>()
            var reference: [UInt64: Int] = [:]
            var touched = Set<UInt64>()
            for op in ops {
                switch op {
                case .set(let id, let value): map[id] = value; reference[id] = value; touched.insert(id)
                case .remove(let id): map[id] = nil; reference[id] = nil
                case .rebase(let id): map.removeAll(rebasingAt: id); reference.removeAll()
                }
                #expect(map.count == reference.count)
            }
            for id in touched { #expect(map[id] == reference[id]) }
            // Memory stays linear in the ids held, whatever their values.
            #expect(map.denseCapacity <= 2 * (4 * ops.count + IDCounter.slack))
        }
    }

    @Test func denseIdsFromABaseStayInTheArray() {
        var map = IDMap<Int>()
        map.removeAll(rebasingAt: 1_000_000)
        for id in UInt64(1_000_000)..<1_065_536 { map[id] = Int(id % 7) }
        #expect(map.count == 65_536)
        #expect(map.denseCapacity >= 65_536 && map.denseCapacity < 4 * 65_536 + IDCounter.slack)
        #expect(map[999_999] == nil)
        #expect(map[1_000_007] == 1_000_007 % 7)
    }
}
