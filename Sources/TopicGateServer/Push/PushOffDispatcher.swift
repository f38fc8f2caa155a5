/// Where sends go when push is off (no broker configured): nowhere. A send is still checked
/// and answered as with push on; without a broker no device can have installed, so there is
/// nobody it could reach.
struct PushOffDispatcher: PushDispatcher {
    func dispatch(_ delivery: PushDelivery) async throws {}
}
