internal import PostgresNIO
import TopicGateCore

extension PostgresQuery.StringInterpolation {
    /// `(columns) VALUES (…), (…)`: the outbox rows of `messages`, claimed by `claim` (if any),
    /// for `INSERT INTO outbox …`, alone or after the record the messages belong to
    /// (`WITH … AS (INSERT INTO outbox …) …`).
    mutating func appendInterpolation(outboxRows messages: [OutboxMessage], claim: OutboxClaim?) {
        appendLiteral(
            """
            (message_id, app_id, payload, recipients, accepted_at, command_id, claimed_by, lease_until, traced)
            VALUES
            """)
        for (index, message) in messages.enumerated() {
            appendLiteral(index == 0 ? " (" : ", (")
            appendInterpolation(message.id)
            appendLiteral(", ")
            appendInterpolation(message.appID)
            appendLiteral(", ")
            appendInterpolation(ByteBuffer(bytes: message.payload))
            appendLiteral(", ")
            appendInterpolation(StoredForm.recipients(message.recipients))
            appendLiteral(", ")
            appendInterpolation(message.acceptedAt)
            appendLiteral(", ")
            appendInterpolation(message.commandID)
            appendLiteral(", ")
            appendInterpolation(claim?.gateway)
            appendLiteral(", ")
            appendInterpolation(claim?.leaseUntil ?? 0)
            appendLiteral(", ")
            appendInterpolation(message.traced)
            appendLiteral(")")
        }
    }

    /// `WITH queued AS (INSERT INTO outbox …) ` before a statement that writes the record `push`
    /// belongs to, so that both commit in one statement; nothing when there is no push.
    mutating func appendInterpolation(queueing push: QueuedPush?) {
        guard let push else { return }
        appendLiteral("WITH queued AS (INSERT INTO outbox ")
        appendInterpolation(outboxRows: [push.message], claim: push.claim)
        appendLiteral(") ")
    }
}
