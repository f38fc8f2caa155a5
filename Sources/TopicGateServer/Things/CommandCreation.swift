import TopicGateCore

/// `201` to a command: its ID, and for a traced command where its push's deliveries are read.
/// Its JSON form is written by hand: it answers every command.
struct CommandCreation: JSONRepresentable, Sendable {
    let commandID: String
    let deliveries: String?

    init(appID: AppID, id: CommandID, traced: Bool) {
        commandID = id.rawValue
        deliveries = traced ? "/api/apps/\(appID.rawValue)/push/messages/\(id.rawValue)/deliveries" : nil
    }

    var json: JSONValue {
        guard let deliveries else { return ["commandID": .string(commandID)] }
        return ["commandID": .string(commandID), "deliveries": .string(deliveries)]
    }
}
