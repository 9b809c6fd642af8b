import Foundation
import Synchronization

/// Runs work items on one thread per core, each with a stack large enough for the parser's
/// deepest nesting and the fact walk's bound (the default 512 KiB of a secondary thread is not).
enum Parallel {
    /// Stack of each worker thread.
    static let stackSize = 256 << 20

    /// `body(i)` for every `i` in `0..<count`, on `workers` threads, taken in the order of `order`
    /// when given (a permutation of the indices: the longest work first keeps the cores busy to the
    /// end); the results in index order.
    static func map<T: Sendable>(_ count: Int, workers: Int = ProcessInfo.processInfo.activeProcessorCount,
                                 order: [Int]? = nil, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        precondition(order.map { $0.count == count } ?? true, "order is not a permutation of the indices")
        guard count > 0 else { return [] }
        let shared = Shared<T>()
        let done = DispatchSemaphore(value: 0)
        let threads = max(1, min(workers, count))
        for _ in 0..<threads {
            let thread = Thread {
                var local: [(Int, T)] = []
                while true {
                    let index = shared.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < count else { break }
                    let item = order?[index] ?? index
                    local.append((item, body(item)))
                }
                shared.results.withLock { all in
                    for (index, value) in local { all[index] = value }
                }
                done.signal()
            }
            thread.stackSize = stackSize
            thread.start()
        }
        for _ in 0..<threads { done.wait() }
        return shared.results.withLock { all in (0..<count).map { all[$0]! } }
    }

    private final class Shared<T: Sendable>: Sendable {
        let next = Atomic<Int>(0)
        let results = Mutex<[Int: T]>([:])
    }
}
