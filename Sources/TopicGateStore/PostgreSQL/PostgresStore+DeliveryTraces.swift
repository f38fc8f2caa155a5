internal import PostgresNIO
public import TopicGateCore

extension PostgresStore: DeliveryTraceStore {
    public func recordDeliveries(_ deliveries: [DeviceDelivery], replacing: Bool) async throws {
        guard let latest = deliveries.map(\.at.rawValue).max() else { return }
        try await write { connection in
            for delivery in deliveries {
                let (kind, id) = StoredForm.columns(delivery.principal)
                let (app, message, installation) = (
                    delivery.appID, delivery.messageID, delivery.installationID.rawValue
                )
                let (topic, state, detail, at) = (
                    delivery.mqttTopic, delivery.state.rawValue, delivery.detail, delivery.at.rawValue
                )
                // Without `replacing`, a device recorded already keeps what it has.
                try await connection.run(
                    """
                    INSERT INTO push_deliveries (app_id, message_id, installation_id, principal_kind, principal_id,
                        mqtt_topic, state, detail, at)
                    VALUES (\(app), \(message), \(installation), \(kind), \(id), \(topic), \(state), \(detail), \(at))
                    ON CONFLICT (app_id, message_id, installation_id) DO UPDATE
                    SET state = excluded.state, detail = excluded.detail, at = excluded.at WHERE \(replacing)
                    """)
            }
            try await connection.run(
                "DELETE FROM push_deliveries WHERE at < \(latest - DeliveryTraceRetention.span.wholeMilliseconds)")
        }
    }

    public func deliveries(appID: AppID, messageID: PushMessageID) async throws -> [DeviceDelivery] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT * FROM push_deliveries WHERE app_id = \(appID) AND message_id = \(messageID)
                ORDER BY principal_kind, principal_id, installation_id
                """
            ).compactMap { row in
                guard
                    let principal = StoredForm.principal(
                        kind: try row("principal_kind"), id: try row("principal_id")),
                    let state = DeliveryState(rawValue: try row("state"))
                else { return nil }
                return DeviceDelivery(
                    messageID: try row("message_id"), appID: appID,
                    installationID: InstallationID(try row("installation_id", as: String.self)),
                    principal: principal, mqttTopic: try row("mqtt_topic"), state: state, detail: try row("detail"),
                    at: UnixMillis(try row("at", as: Int64.self)))
            }
        }
    }
}
