import NotifyBus
import Testing

enum Cart { struct Changed: BusMessage { var items: Int } }
enum Profile { struct Changed: BusMessage { var name: String } }

/// Two types that say they are one message.
struct ClaimA: BusMessage { static let name = "shared.claim"; var n: Int }
struct ClaimB: BusMessage { static let name = "shared.claim"; var s: String }

private final class Target: @unchecked Sendable {
    // @unchecked: written only by handlers on the posting test thread.
    var heard: [String] = []
    func cart(_ message: Cart.Changed) { heard.append("cart") }
    func profile(_ message: Profile.Changed) { heard.append("profile") }
}

@Suite struct MessageIdentityTests {
    @Test func defaultNamesAreModuleQualified() {
        #expect(Cart.Changed.name == "NotifyBusTests.Cart.Changed")
        #expect(Profile.Changed.name == "NotifyBusTests.Profile.Changed")
        #expect(Cart.Changed.name != Profile.Changed.name)
    }

    @Test func removingOneNestedTypeLeavesTheOtherWithItsShortNameObserved() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let target = Target()
        bus.addObserver(target, selector: "cart:", name: Cart.Changed.self, action: Target.cart)
        bus.addObserver(target, selector: "profile:", name: Profile.Changed.self, action: Target.profile)
        bus.removeObserver(target, name: Cart.Changed.self)
        bus.post(Cart.Changed(items: 1))
        bus.post(Profile.Changed(name: "a"))
        #expect(target.heard == ["profile"])
        #expect(bus.observerCount == 1)
        let added = sink.events.compactMap { event -> String? in
            if case .observerAdded(_, let message, _, _, _, _, _, _) = event.kind { return message }
            return nil
        }
        #expect(added == ["NotifyBusTests.Cart.Changed", "NotifyBusTests.Profile.Changed"])
    }

    @Test func removalByOwnerAndTypeRemovesOnlyThatType() {
        let bus = Bus()
        let owner = Owner()
        let heard = Log<String>()
        let tokens = [
            bus.observe(Cart.Changed.self, owner: owner) { _ in heard.append("cart") },
            bus.observe(Profile.Changed.self, owner: owner) { _ in heard.append("profile") },
        ]
        bus.remove(Profile.Changed.self, owner: owner)
        bus.post(Cart.Changed(items: 1))
        bus.post(Profile.Changed(name: "a"))
        #expect(heard.all == ["cart"])
        withExtendedLifetime(tokens) {}
    }

    @Test func twoTypesClaimingOneNameAreRefusedWithAClearError() throws {
        let bus = Bus()
        try bus.register(ClaimA.self)
        try bus.register(ClaimA.self)  // once per type: again is fine
        #expect(throws: NotifyBusError.self) { try bus.register(ClaimB.self) }
        do {
            try bus.register(ClaimB.self)
        } catch {
            #expect(error.description.contains("'shared.claim' is claimed by two types"))
            #expect(error.description.contains("ClaimA") && error.description.contains("ClaimB"))
        }
    }

    @Test func theClashIsRefusedAcrossBusesOfOneSession() throws {
        let sink = MemoryTraceSink()
        let a = Bus(sink: sink), b = Bus(sink: sink)
        let token = a.observe(ClaimA.self) { _ in }
        #expect(throws: NotifyBusError.self) { try b.register(ClaimB.self) }
        // A bus of its own session may use the other type.
        try Bus().register(ClaimB.self)
        withExtendedLifetime(token) {}
    }

    @Test func observingTheSecondTypeOfANameStopsWithTheError() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let bus = Bus()
            let a = bus.observe(ClaimA.self) { _ in }
            let b = bus.observe(ClaimB.self) { _ in }
            withExtendedLifetime((a, b)) {}
        }
        let said = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(said.contains("message name 'shared.claim' is claimed by two types"), "\(said)")
    }

    @Test func namedMessagesKeepTheirStringNames() {
        let sink = MemoryTraceSink()
        let bus = Bus(sink: sink)
        let heard = Log<String>()
        let token = bus.observe(named: "CartDidChange") { heard.append($0.name) }
        bus.post(NamedMessage(name: "CartDidChange"))
        bus.post(NamedMessage(name: "Other"))
        #expect(heard.all == ["CartDidChange"])
        #expect(sink.events.map(describe).contains("add 1 CartDidChange owner:-"))
        withExtendedLifetime(token) {}
    }
}
