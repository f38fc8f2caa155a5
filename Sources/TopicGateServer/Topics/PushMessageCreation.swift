import TopicGateCore

/// `201` to a send: the push message's ID, and for a traced send where its deliveries are read.
/// Its JSON form is written by hand: it answers every send.
struct PushMessageCreation: JSONRepresentable, Sendable {
    let pushMessageID: String
    let deliveries: String?

    init(appID: AppID, id: String, traced: Bool) {
        pushMessageID = id
        deliveries = traced ? "/api/apps/\(appID.rawValue)/push/messages/\(id)/deliveries" : nil
    }

    var json: JSONValue {
        guard let deliveries else { return ["pushMessageID": .string(pushMessageID)] }
        return ["pushMessageID": .string(pushMessageID), "deliveries": .string(deliveries)]
    }
}
