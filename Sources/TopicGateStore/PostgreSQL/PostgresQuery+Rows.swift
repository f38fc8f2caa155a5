internal import PostgresNIO
import TopicGateCore

extension PostgresQuery.StringInterpolation {
    /// `(columns) VALUES (…)`: `user`'s row, for `INSERT INTO users …`.
    mutating func appendInterpolation(userRow user: User) {
        appendLiteral(
            """
            (app_id, user_id, login_name, email_address, phone_number, password_hash, display_name, country, locale,
                custom_fields, disabled, created_at, modified_at, last_seen_at) VALUES (
            """)
        appendInterpolation(user.appID)
        appendLiteral(", ")
        appendInterpolation(user.id)
        appendLiteral(", ")
        appendInterpolation(user.loginName)
        appendLiteral(", ")
        appendInterpolation(user.emailAddress)
        appendLiteral(", ")
        appendInterpolation(user.phoneNumber)
        appendLiteral(", ")
        appendInterpolation(user.passwordHash)
        appendLiteral(", ")
        appendInterpolation(user.profile.displayName)
        appendLiteral(", ")
        appendInterpolation(user.profile.country)
        appendLiteral(", ")
        appendInterpolation(user.profile.locale)
        appendLiteral(", ")
        appendInterpolation(JSONWriter.string(.object(user.profile.customFields)))
        appendLiteral(", ")
        appendInterpolation(user.disabled)
        appendLiteral(", ")
        appendInterpolation(user.createdAt)
        appendLiteral(", ")
        appendInterpolation(user.modifiedAt)
        appendLiteral(", ")
        appendInterpolation(user.lastSeenAt)
        appendLiteral(")")
    }

    /// `(columns) VALUES (…)`: `token`'s row, for `INSERT INTO tokens …`.
    mutating func appendInterpolation(tokenRow token: AccessToken) {
        let (kind, id) = StoredForm.columns(token.principal)
        appendLiteral("(token_hash, app_id, principal_kind, principal_id, expires_at, created_at, relayed_by) VALUES (")
        appendInterpolation(token.hash)
        appendLiteral(", ")
        appendInterpolation(token.appID)
        appendLiteral(", ")
        appendInterpolation(kind)
        appendLiteral(", ")
        appendInterpolation(id)
        appendLiteral(", ")
        appendInterpolation(token.expiresAt)
        appendLiteral(", ")
        appendInterpolation(token.createdAt)
        appendLiteral(", ")
        appendInterpolation(token.relay)
        appendLiteral(")")
    }
}

extension PostgresQuery.StringInterpolation {
    /// `column = value, …` for `parts` of `trigger` and its modification time, for
    /// `UPDATE triggers SET …`.
    mutating func appendInterpolation(_ trigger: Trigger, _ parts: TriggerParts) {
        if parts.contains(.definition) {
            appendLiteral("predicate = ")
            appendInterpolation(JSONWriter.string(trigger.predicate.json))
            appendLiteral(", command = ")
            appendInterpolation(JSONWriter.string(trigger.command.json))
            appendLiteral(", title = ")
            appendInterpolation(trigger.title)
            appendLiteral(", description = ")
            appendInterpolation(trigger.description)
            appendLiteral(", metadata = ")
            appendInterpolation(trigger.metadata.map { JSONWriter.string(.object($0)) })
            appendLiteral(", ")
        }
        if parts.contains(.schedule) {
            appendLiteral("last_matched = ")
            appendInterpolation(trigger.lastMatched)
            appendLiteral(", next_due_at = ")
            appendInterpolation(trigger.nextDueAt)
            appendLiteral(", ")
        }
        if parts.contains(.status) {
            appendLiteral("disabled = ")
            appendInterpolation(trigger.disabled)
            appendLiteral(", disabled_reason = ")
            appendInterpolation(trigger.disabledReason)
            appendLiteral(", ")
        }
        appendLiteral("modified_at = ")
        appendInterpolation(trigger.modifiedAt)
    }
}
