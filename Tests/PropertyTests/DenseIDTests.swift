import PropertyBased
import Testing
@testable import TraceStore

/// The folds' id tables (an array while ids are dense, a dictionary past them) against
/// `Dictionary` and `Set`: the same counts and members for ids dense, sparse, huge and mixed,
/// including ids that move from the dictionary into the array when it grows.
@Suite struct DenseIDTests {
    /// Ids drawn from the shapes a trace has: small counters, ids just past the array, far ones.
    static let ids = Gen<UInt64>.oneOf(
        Gen.uint64(in: 0...300),
        Gen.uint64(in: 4_000...20_000),
        Gen.uint64(in: 0...UInt64.max),
        Gen.always(UInt64.max))

    /// An operation on a set: insert (true) or remove (false) an id.
    static let flagOps = zip(Gen.bool, ids).array(of: 0...400)

    @Test func countsMatchADictionary() async {
        await propertyCheck(count: iterations(default: 200), input: Self.ids.array(of: 0...400)) { ids in
            var counter = IDCounter()
            var reference: [UInt64: Int] = [:]
            for id in ids {
                counter.increment(id)
                reference[id, default: 0] += 1
            }
            for id in ids { #expect(counter.count(of: id) == reference[id]) }
            #expect(counter.count(of: 12_345_678_901) == reference[12_345_678_901] ?? 0)
            let all = counter.counts
            #expect(all.count == reference.count)
            #expect(Dictionary(all.map { ($0.id, $0.count) }, uniquingKeysWith: +) == reference)
        }
    }

    @Test func flagsMatchASet() async {
        await propertyCheck(count: iterations(default: 200), input: Self.flagOps) { ops in
            var flags = IDFlags()
            var reference = Set<UInt64>()
            for (insert, id) in ops {
                if insert { flags.insert(id); reference.insert(id) } else { flags.remove(id); reference.remove(id) }
                #expect(flags.contains(id) == reference.contains(id))
                #expect(flags.count == reference.count)
            }
            for (_, id) in ops { #expect(flags.contains(id) == reference.contains(id)) }
            flags.removeAll()
            #expect(flags.isEmpty)
            for (_, id) in ops { #expect(!flags.contains(id)) }
        }
    }

    /// A set emptied again and again (the leaks walk forgets its quiet observers whenever an owner
    /// goes) keeps its ids in the array as they climb: what bounds the array is every insert made,
    /// not the ids held now.
    @Test func aSetEmptiedOftenKeepsClimbingIdsInTheArray() {
        var flags = IDFlags()
        for id in UInt64(1)...50_050 {
            flags.insert(id)
            if id % 100 == 0 { flags.removeAll() }
        }
        #expect(flags.denseCapacity > 50_000)
        #expect(flags.contains(50_049) && !flags.contains(49_999) && flags.count == 50)
    }

    /// Ids far past the ones held stay in the dictionary: the array does not grow to reach them.
    @Test func aFarIdDoesNotGrowTheArray() {
        var counter = IDCounter()
        counter.increment(1)
        counter.increment(UInt64(Int32.max))
        counter.increment(UInt64.max)
        #expect(counter.count(of: UInt64(Int32.max)) == 1)
        #expect(counter.count(of: .max) == 1)
        #expect(counter.counts.count == 3)
        #expect(counter.denseCapacity < 2 * IDCounter.slack)
        var flags = IDFlags()
        flags.insert(.max)
        flags.insert(1 << 40)
        #expect(flags.contains(.max) && flags.contains(1 << 40) && !flags.contains(0))
    }
}
