import TopicGateCore

/// `GET …/push/messages/{id}/deliveries`: how far a traced push got toward each device, how
/// many are in each state, and whether each device is online now.
struct PushTraceReport: Encodable, Sendable {
    struct Delivery: Encodable, Sendable {
        let installationID: String
        let principal: String
        let name: String?
        let state: String
        let detail: String?
        let at: UnixMillis
        let online: Bool
    }

    let pushMessageID: String
    let counts: [String: Int]
    let deliveries: [Delivery]

    init(
        _ messageID: PushMessageID, _ deliveries: [DeviceDelivery], names: [Principal: String],
        presence: DevicePresence
    ) {
        pushMessageID = messageID.rawValue
        counts = Dictionary(
            uniqueKeysWithValues: DeliveryState.allCases.map { state in
                (state.rawValue, deliveries.count { $0.state == state })
            })
        self.deliveries = deliveries.map { delivery in
            Delivery(
                installationID: delivery.installationID.rawValue, principal: delivery.principal.description,
                name: names[delivery.principal], state: delivery.state.rawValue, detail: delivery.detail,
                at: delivery.at, online: presence.status(delivery.mqttTopic).online)
        }
    }
}
