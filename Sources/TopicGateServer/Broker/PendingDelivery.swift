/// Publications already handed to their brokers, whose outcome is still to come: awaiting
/// `failures()` gives the failures by index, as `DeviceLink.deliver` does.
struct PendingDelivery: Sendable {
    let failures: @Sendable () async -> [Int: DeliveryFailure]
}
