import GRDB
public import TopicGateCore

extension SQLiteStore: DeliveryTraceStore {
    public func recordDeliveries(_ deliveries: [DeviceDelivery], replacing: Bool) async throws {
        guard let latest = deliveries.map(\.at.rawValue).max() else { return }
        try await write { db in
            // Without `replacing`, a device recorded already keeps what it has.
            let statement = try db.cachedStatement(
                sql: """
                    INSERT INTO push_deliveries (app_id, message_id, installation_id, principal_kind, principal_id,
                        mqtt_topic, state, detail, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, message_id, installation_id) DO UPDATE
                    SET state = excluded.state, detail = excluded.detail, at = excluded.at WHERE ?
                    """)
            for delivery in deliveries {
                let (kind, id) = StoredForm.columns(delivery.principal)
                try statement.execute(arguments: [
                    delivery.appID.rawValue, delivery.messageID.rawValue, delivery.installationID.rawValue, kind, id,
                    delivery.mqttTopic, delivery.state.rawValue, delivery.detail, delivery.at.rawValue, replacing,
                ])
            }
            try db.cachedStatement(sql: "DELETE FROM push_deliveries WHERE at < ?")
                .execute(arguments: [latest - DeliveryTraceRetention.span.wholeMilliseconds])
        }
    }

    public func deliveries(appID: AppID, messageID: PushMessageID) async throws -> [DeviceDelivery] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT * FROM push_deliveries WHERE app_id = ? AND message_id = ?
                        ORDER BY principal_kind, principal_id, installation_id
                        """), arguments: [appID.rawValue, messageID.rawValue]
            ).compactMap { row in
                guard let principal = StoredForm.principal(kind: row["principal_kind"], id: row["principal_id"]),
                    let state = DeliveryState(rawValue: row["state"])
                else { return nil }
                return DeviceDelivery(
                    messageID: PushMessageID(row["message_id"] as String), appID: appID,
                    installationID: InstallationID(row["installation_id"]),
                    principal: principal, mqttTopic: row["mqtt_topic"], state: state, detail: row["detail"],
                    at: UnixMillis(row["at"] as Int64))
            }
        }
    }
}
