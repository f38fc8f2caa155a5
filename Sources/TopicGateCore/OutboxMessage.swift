/// An accepted push waiting to be handed to the broker: written durably before the send is
/// answered, removed once every recipient device's broker acknowledged it.
public struct OutboxMessage: Sendable, Hashable {
    /// The push message ID (also `pushMessageID` inside the payload).
    public var id: PushMessageID
    public var appID: AppID
    /// The JSON bytes each device receives.
    public var payload: [UInt8]
    /// Resolved when the message was accepted; mapped to live installations when dispatched.
    public var recipients: [Subscriber]
    public var acceptedAt: UnixMillis
    /// Set when this message carries a command to its thing: the command records when the broker
    /// took it for one of the thing's installations, and fails when there was none.
    public var commandID: CommandID?
    /// Deliveries that failed so far (a message that failed is tried again on its own).
    public var attempts: Int
    /// The brokers (by name) that acknowledged it for all their devices already, when the
    /// gateways run several and another one was down: a retry goes to the others only.
    public var deliveredBrokers: Set<String>
    /// Whether each device's outcome is recorded (`DeviceDelivery`): an operator's test push.
    public var traced: Bool

    public init(
        id: PushMessageID, appID: AppID, payload: [UInt8], recipients: [Subscriber], acceptedAt: UnixMillis,
        commandID: CommandID? = nil,
        attempts: Int = 0, deliveredBrokers: Set<String> = [], traced: Bool = false
    ) {
        self.traced = traced
        self.deliveredBrokers = deliveredBrokers
        self.commandID = commandID
        self.attempts = attempts
        self.id = id
        self.appID = appID
        self.payload = payload
        self.recipients = recipients
        self.acceptedAt = acceptedAt
    }
}
