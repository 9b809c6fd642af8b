import Synchronization

/// One bus's observers: the lists by message type and by name, the wildcards, and
/// the owners that `strong` block observers keep alive. Used under the bus's lock.
///
/// Ids and owners are not here: the bus's ``RecordingSession`` hands them out, so
/// that every bus recording into one trace agrees on them.
struct ObserverTable {
    /// The next observer id of a bus that does not record; a recording bus takes its
    /// ids from its session.
    var nextLocalObserverID: UInt64 = 1
    var byType = SlotTable()
    /// The lists of named messages, by name.
    var byName: [String: ObserverList] = [:]
    let wildcards: ObserverList
    /// The bus's handle, which its lists hold.
    let handle: BusHandle
    /// The number of registered observers.
    private(set) var count = 0
    /// The owners kept alive by `strong` block observers.
    var retainers: [UInt64: OwnerRetainer] = [:]
    /// The owners found kept alive only by a block, already recorded.
    var reportedRetained: Set<UInt64> = []

    init(handle: BusHandle) {
        self.handle = handle
        wildcards = ObserverList(name: "*", handle: handle)
    }

    mutating func takeLocalObserverID() -> UInt64 {
        defer { nextLocalObserverID += 1 }
        return nextLocalObserverID
    }

    /// The list of the message type whose identity is `key`, if it has one.
    @inline(__always)
    func list(for key: ObjectIdentifier) -> ObserverList? { byType[key] }

    /// Adds the list of the message type `key`, named `name`.
    mutating func addList(for key: ObjectIdentifier, name: String) -> ObserverList {
        let list = ObserverList(name: name, handle: handle)
        byType.insert(list, for: key)
        return list
    }

    /// The list of the named message `name`, made on first use.
    mutating func list(named name: String) -> ObserverList {
        if let list = byName[name] { return list }
        let list = ObserverList(name: name, handle: handle)
        byName[name] = list
        return list
    }

    /// The observers a post of `M` (named `name`, for a ``NamedMessage``) reaches.
    @inline(__always)
    func items<M: BusMessage>(for type: M.Type, named name: String?) -> [Observer?] {
        if let name { return byName[name]?.items ?? [] }
        return byType[ObjectIdentifier(M.self)]?.items ?? []
    }

    /// The wildcards a post reaches.
    @inline(__always)
    var wildcardItems: [Observer?] { wildcards.live == 0 ? [] : wildcards.items }

    /// Registers `observer` in its list.
    mutating func insert(_ observer: Observer) {
        observer.list.append(observer)
        count += 1
    }

    /// Unregisters `observer`, which is registered (`isActive`).
    /// - Returns: What kept a `strong` block's owner alive: release it after unlocking,
    ///   since the owner's deinit may call the bus.
    mutating func remove(_ observer: Observer) -> OwnerRetainer? {
        observer.isActive.store(false, ordering: .releasing)
        count -= 1
        observer.list.remove(observer)
        if observer.dispatch == .async { observer.didRemove() }
        guard observer.capture == .strong, let ownerID = observer.ownerID,
              let retainer = observer.takeRetainer() else { return nil }
        retainer.count -= 1
        if retainer.count == 0 { retainers[ownerID] = nil }
        return retainer
    }

    /// The registered observers of `ownerID`, in registration order.
    func observers(ownedBy ownerID: UInt64) -> [Observer] {
        var lists: [ObserverList] = byType.lists
        lists.append(contentsOf: byName.values)
        lists.append(wildcards)
        return lists.flatMap { $0.items.compactMap { $0 } }.filter { $0.ownerID == ownerID }.sorted { $0.id < $1.id }
    }

    /// Every list, for the bus's deinit.
    var allLists: [ObserverList] { byType.lists + Array(byName.values) + [wildcards] }
}
