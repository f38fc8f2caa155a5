internal import PostgresNIO
import TopicGateCore

/// A user's row, found by its ID.
struct UserByID: NamedStatement {
    /// The columns of a `users` row that `PostgresStore.user` reads.
    static let columns = """
        app_id, user_id, login_name, email_address, phone_number, password_hash, display_name, country, locale, \
        custom_fields, disabled, created_at, modified_at, last_seen_at
        """
    static let sql = "SELECT \(columns) FROM users WHERE app_id = $1 AND user_id = $2"

    let appID: AppID
    let id: UserID

    func makeBindings() -> PostgresBindings { Self.bindings("\(appID)\(id)") }
}
