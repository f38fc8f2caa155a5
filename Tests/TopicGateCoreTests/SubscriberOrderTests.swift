import Testing
import TopicGateCore

@Suite("Subscriber order")
struct SubscriberOrderTests {
    @Test("Subscribers sort as their descriptions do (things, then users, each by ID)")
    func orderMatchesDescriptions() {
        let subscribers: [Subscriber] = [
            .user(UserID("b")), .thing(ThingID("z")), .user(UserID("a")), .thing(ThingID("th.1")),
            .user(UserID("a-1")), .user(UserID("A")), .thing(ThingID("th.10")), .user(UserID("9")),
        ]
        #expect(subscribers.sorted().map(\.description) == subscribers.map(\.description).sorted())
        #expect(!(Subscriber.user(UserID("a")) < Subscriber.user(UserID("a"))))
    }
}
