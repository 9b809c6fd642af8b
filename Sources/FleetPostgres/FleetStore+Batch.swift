import Synchronization
public import TraceFleet

extension FleetStore {
    /// What a push did: sessions written, and sessions whose UUID was already there.
    public struct PushOutcome: Sendable, Hashable {
        public var added: Int
        public var present: Int
    }

    /// Pushes many sessions over `connections` connections at once (this store's and new ones to its
    /// server), each session still in its own transaction: waiting on one server round trip at a time
    /// would leave the server and both ends idle most of the time.
    ///
    /// - Throws: ``FleetError`` for the first failure, saying how many sessions were written before it;
    ///   each session is whole or absent, and pushing again completes the rest.
    public func push(_ sessions: [FleetSession], connections: Int = 4) async throws(FleetError) -> PushOutcome {
        final class Tally: Sendable {
            let counts = Mutex(PushOutcome(added: 0, present: 0))
        }
        let tally = Tally()
        var stores = [self]
        var failure: FleetError?
        do throws(FleetError) {
            for _ in 1..<max(1, min(connections, sessions.count)) { stores.append(try await FleetStore.connect(address)) }
        } catch {
            failure = error
        }
        // The month partitions first, from one connection: creating one locks `findings` whole, and two
        // connections doing it while others insert could deadlock.
        if failure == nil {
            do throws(FleetError) {
                let months = Set(sessions.filter { !$0.findings.isEmpty }.map { FleetSchema.partition(of: $0.startedAt).name })
                for session in sessions where !session.findings.isEmpty {
                    let partition = FleetSchema.partition(of: session.startedAt)
                    guard !partitions.withLock({ $0.contains(partition.name) }) else { continue }
                    try await createPartition(partition)
                }
                for store in stores { store.partitions.withLock { $0.formUnion(months) } }
            } catch {
                failure = error
            }
        }
        if failure == nil {
            let lanes = stores
            do {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (lane, store) in lanes.enumerated() {
                        group.addTask {
                            for index in stride(from: lane, to: sessions.count, by: lanes.count) {
                                let added = try await store.push(sessions[index])
                                tally.counts.withLock { added ? ($0.added += 1) : ($0.present += 1) }
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            } catch let error as FleetError {
                failure = error
            } catch {
                failure = FleetError(.server, "pushing to \(address.description): \(error)")
            }
        }
        for store in stores.dropFirst() { await store.close() }
        let outcome = tally.counts.withLock { $0 }
        if let failure {
            throw FleetError(failure.kind, failure.message + "; \(outcome.added) session\(outcome.added == 1 ? "" : "s") pushed before it, "
                             + "none half-written: push again to complete")
        }
        return outcome
    }
}
