internal import PostgresNIO

/// The PostgreSQL schema, as a list of migrations that only ever grows; each runs once, in its
/// own transaction, recorded in `schema_migrations`. The tables are SQLite's, in PostgreSQL's
/// types (BOOLEAN, BIGINT times, BYTEA payloads, identity keys); columns that pages are keyed by
/// compare bytes (`COLLATE "C"`), as SQLite does, whatever the database's locale.
enum PostgresSchema {
    static let migrations: [(version: String, sql: String)] = [
        ("v1-schema", version1),
        ("v2-fleet", version2),
        ("v3-brokers", version3),
        ("v4-console", version4),
        ("v5-quotas", version5),
        ("v6-gateways-traits-queries", version6),
        ("v7-command-states-relays", version7),
        ("v8-triggers", version8),
        ("v9-topic-acl-list", version9),
    ]

    /// Applies the migrations the database has not seen. A transaction-scoped advisory lock makes
    /// gateways that start together migrate one after the other.
    static func migrate(_ store: PostgresStore) async throws {
        try await store.write { connection in
            try await connection.run("SELECT pg_advisory_xact_lock(7319004)")
            try await connection.run(
                "CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)"
            )
            let applied = Set(
                try await connection.rows("SELECT version FROM schema_migrations").map {
                    try $0("version", as: String.self)
                })
            for migration in migrations where !applied.contains(migration.version) {
                // One statement at a time: the extended query protocol takes no lists.
                for statement in migration.sql.split(separator: ";")
                where !statement.allSatisfy(\.isWhitespace) {
                    try await connection.run(PostgresQuery(unsafeSQL: String(statement)))
                }
                try await connection.run(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(migration.version), now())")
            }
        }
    }

    /// Which gateway delivers a message, until when; which runs a scheduled job; the abuse
    /// controls' records that the gateways share.
    static let version2 = """
        ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
        ALTER TABLE outbox ADD COLUMN lease_until BIGINT NOT NULL DEFAULT 0;
        CREATE INDEX outbox_claims ON outbox(claimed_by, lease_until);
        CREATE TABLE job_leases (
            job TEXT PRIMARY KEY,
            holder TEXT NOT NULL,
            lease_until BIGINT NOT NULL
        );
        CREATE TABLE abuse_records (
            key TEXT PRIMARY KEY,
            record TEXT NOT NULL,
            expires_at BIGINT NOT NULL
        );
        CREATE INDEX abuse_records_expiry ON abuse_records(expires_at);
        """

    /// Which broker serves an installation; which brokers have a message already.
    static let version3 = """
        ALTER TABLE installations ADD COLUMN broker TEXT;
        ALTER TABLE outbox ADD COLUMN delivered_brokers TEXT;
        ALTER TABLE dead_letters ADD COLUMN delivered_brokers TEXT;
        CREATE INDEX installations_broker ON installations(broker) WHERE revoked_at IS NULL;
        """

    /// When each device was last seen; test pushes traced to each device.
    static let version4 = """
        ALTER TABLE installations ADD COLUMN last_seen_at BIGINT;
        ALTER TABLE outbox ADD COLUMN traced BOOLEAN NOT NULL DEFAULT false;
        ALTER TABLE dead_letters ADD COLUMN traced BOOLEAN NOT NULL DEFAULT false;
        CREATE TABLE push_deliveries (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            message_id TEXT NOT NULL,
            installation_id TEXT NOT NULL,
            principal_kind TEXT NOT NULL,
            principal_id TEXT NOT NULL,
            mqtt_topic TEXT NOT NULL,
            state TEXT NOT NULL,
            detail TEXT,
            at BIGINT NOT NULL,
            PRIMARY KEY (app_id, message_id, installation_id)
        );
        CREATE INDEX push_deliveries_age ON push_deliveries(at);
        """

    /// A principal's topics counted against its quota; the ACL audit pruned by age.
    static let version5 = """
        CREATE INDEX topics_creator ON topics(app_id, creator_kind, creator_id);
        CREATE INDEX acl_audit_age ON acl_audit(at);
        """

    /// Thing-IF gateways and the end nodes they relay for; states kept per trait alias; indexes
    /// for the user and thing queries.
    /// Command states as Kii's server sets them (no DELIVERED: when a broker took a command is its
    /// published_at); tokens a gateway minted for its end node; an alias's states in their
    /// history's order (time, then sequence) for state queries' pages.
    static let version7 = """
        ALTER TABLE commands ADD COLUMN published_at BIGINT;
        UPDATE commands SET state = 'SENDING', published_at = modified_at WHERE state = 'DELIVERED';
        ALTER TABLE tokens ADD COLUMN relayed_by TEXT;
        DROP INDEX thing_states_alias;
        CREATE INDEX thing_states_alias ON thing_states(app_id, thing_id, alias, recorded_at, sequence);
        """

    /// Thing-IF triggers; the apps' configuration parameters.
    static let version8 = """
        CREATE TABLE triggers (
            app_id TEXT NOT NULL,
            trigger_id TEXT COLLATE "C" NOT NULL,
            thing_id TEXT NOT NULL,
            predicate TEXT NOT NULL,
            command TEXT NOT NULL,
            title TEXT,
            description TEXT,
            metadata TEXT,
            disabled BOOLEAN NOT NULL DEFAULT false,
            disabled_reason TEXT,
            last_matched BOOLEAN,
            next_due_at BIGINT,
            created_at BIGINT NOT NULL,
            modified_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, trigger_id),
            FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX triggers_thing ON triggers(app_id, thing_id, trigger_id);
        CREATE INDEX triggers_due ON triggers(next_due_at) WHERE next_due_at IS NOT NULL AND NOT disabled;
        CREATE TABLE app_parameters (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (app_id, name)
        );
        """

    /// Each topic's ACL entries as the last change of them left them (`StoredForm.aclList`), so
    /// that a change planned on entries read earlier applies in one statement when they are still
    /// these; NULL when unknown (topics older than the column, entries removed with a principal).
    static let version9 = """
        ALTER TABLE topics ADD COLUMN acl_list TEXT;
        """

    static let version6 = """
        CREATE TABLE end_nodes (
            app_id TEXT NOT NULL,
            end_node_id TEXT NOT NULL,
            gateway_id TEXT NOT NULL,
            added_at BIGINT NOT NULL,
            online BOOLEAN,
            online_modified_at BIGINT,
            PRIMARY KEY (app_id, end_node_id),
            FOREIGN KEY (app_id, end_node_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE,
            FOREIGN KEY (app_id, gateway_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX end_nodes_gateway ON end_nodes(app_id, gateway_id, end_node_id);
        ALTER TABLE thing_states ADD COLUMN alias TEXT;
        CREATE INDEX thing_states_alias ON thing_states(app_id, thing_id, alias, recorded_at);
        CREATE INDEX users_display_name ON users(app_id, display_name, user_id) WHERE display_name IS NOT NULL;
        CREATE INDEX users_created ON users(app_id, created_at, user_id);
        CREATE INDEX things_type ON things(app_id, (fields::jsonb ->> '_thingType'));
        """

    static let version1 = """
        CREATE TABLE apps (
            app_id TEXT PRIMARY KEY,
            app_key TEXT NOT NULL,
            client_id TEXT NOT NULL UNIQUE,
            client_secret_hash TEXT NOT NULL,
            name TEXT NOT NULL,
            created_at BIGINT NOT NULL
        );
        CREATE TABLE users (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            user_id TEXT NOT NULL,
            login_name TEXT,
            email_address TEXT,
            phone_number TEXT,
            password_hash TEXT,
            display_name TEXT,
            country TEXT,
            locale TEXT,
            custom_fields TEXT NOT NULL DEFAULT '{}',
            disabled BOOLEAN NOT NULL DEFAULT false,
            created_at BIGINT NOT NULL,
            modified_at BIGINT NOT NULL,
            last_seen_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, user_id)
        );
        CREATE UNIQUE INDEX users_login_name ON users(app_id, lower(login_name)) WHERE login_name IS NOT NULL;
        CREATE UNIQUE INDEX users_email_address ON users(app_id, email_address) WHERE email_address IS NOT NULL;
        CREATE UNIQUE INDEX users_phone_number ON users(app_id, phone_number) WHERE phone_number IS NOT NULL;
        CREATE INDEX users_idle_pseudo ON users(last_seen_at) WHERE password_hash IS NULL;
        CREATE TABLE tokens (
            token_hash TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            principal_kind TEXT NOT NULL,
            principal_id TEXT NOT NULL,
            expires_at BIGINT,
            created_at BIGINT NOT NULL
        );
        CREATE INDEX tokens_principal ON tokens(app_id, principal_kind, principal_id);
        CREATE TABLE groups (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            group_id TEXT NOT NULL,
            name TEXT NOT NULL,
            owner_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            modified_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, group_id),
            FOREIGN KEY (app_id, owner_id) REFERENCES users(app_id, user_id) ON DELETE CASCADE
        );
        CREATE INDEX groups_owner ON groups(app_id, owner_id);
        CREATE TABLE group_members (
            app_id TEXT NOT NULL,
            group_id TEXT NOT NULL,
            user_id TEXT NOT NULL,
            PRIMARY KEY (app_id, group_id, user_id),
            FOREIGN KEY (app_id, group_id) REFERENCES groups(app_id, group_id) ON DELETE CASCADE,
            FOREIGN KEY (app_id, user_id) REFERENCES users(app_id, user_id) ON DELETE CASCADE
        );
        CREATE INDEX group_members_user ON group_members(app_id, user_id);
        CREATE TABLE things (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            thing_id TEXT NOT NULL,
            vendor_thing_id TEXT NOT NULL,
            password_hash TEXT NOT NULL,
            fields TEXT NOT NULL DEFAULT '{}',
            disabled BOOLEAN NOT NULL DEFAULT false,
            created_at BIGINT NOT NULL,
            modified_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, thing_id)
        );
        CREATE UNIQUE INDEX things_vendor_thing_id ON things(app_id, vendor_thing_id);
        CREATE TABLE thing_owners (
            app_id TEXT NOT NULL,
            thing_id TEXT NOT NULL,
            owner_kind TEXT NOT NULL CHECK (owner_kind IN ('user', 'group')),
            owner_id TEXT NOT NULL,
            PRIMARY KEY (app_id, thing_id, owner_kind, owner_id),
            FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX thing_owners_owner ON thing_owners(app_id, owner_kind, owner_id);
        CREATE TABLE topics (
            topic_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            scope_kind TEXT NOT NULL CHECK (scope_kind IN ('app', 'group', 'user', 'thing')),
            scope_id TEXT NOT NULL,
            name TEXT COLLATE "C" NOT NULL,
            creator_kind TEXT NOT NULL,
            creator_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            UNIQUE (app_id, scope_kind, scope_id, name)
        );
        CREATE TABLE acl_entries (
            topic_id BIGINT NOT NULL REFERENCES topics(topic_id) ON DELETE CASCADE,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            is_default BOOLEAN NOT NULL,
            PRIMARY KEY (topic_id, action, subject)
        );
        CREATE INDEX acl_entries_subject ON acl_entries(subject);
        CREATE TABLE subscriptions (
            topic_id BIGINT NOT NULL REFERENCES topics(topic_id) ON DELETE CASCADE,
            subscriber_kind TEXT NOT NULL CHECK (subscriber_kind IN ('user', 'thing')),
            subscriber_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            PRIMARY KEY (topic_id, subscriber_kind, subscriber_id)
        );
        CREATE INDEX subscriptions_subscriber ON subscriptions(subscriber_kind, subscriber_id);
        CREATE TABLE acl_audit (
            audit_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id TEXT NOT NULL,
            scope_kind TEXT NOT NULL,
            scope_id TEXT NOT NULL,
            name TEXT NOT NULL,
            actor TEXT NOT NULL,
            change TEXT NOT NULL,
            action TEXT NOT NULL,
            subject TEXT NOT NULL,
            before TEXT NOT NULL,
            after TEXT NOT NULL,
            at BIGINT NOT NULL
        );
        CREATE INDEX acl_audit_topic ON acl_audit(app_id, scope_kind, scope_id, name, audit_id);
        CREATE TABLE installations (
            installation_id TEXT PRIMARY KEY,
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'thing')),
            principal_id TEXT NOT NULL,
            device_type TEXT NOT NULL,
            registration_id TEXT NOT NULL,
            mqtt_topic TEXT NOT NULL UNIQUE,
            development BOOLEAN NOT NULL,
            created_at BIGINT NOT NULL,
            token_hash TEXT,
            credentials_expire_at BIGINT,
            revoked_at BIGINT
        );
        CREATE INDEX installations_principal ON installations(app_id, principal_kind, principal_id);
        CREATE INDEX installations_registration ON installations(app_id, device_type, registration_id);
        CREATE INDEX installations_token ON installations(token_hash);
        CREATE INDEX installations_revoked ON installations(revoked_at) WHERE revoked_at IS NOT NULL;
        CREATE TABLE outbox (
            sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            message_id TEXT NOT NULL UNIQUE,
            app_id TEXT NOT NULL,
            payload BYTEA NOT NULL,
            recipients TEXT NOT NULL,
            accepted_at BIGINT NOT NULL,
            command_id TEXT,
            attempts INTEGER NOT NULL DEFAULT 0
        );
        CREATE TABLE dead_letters (
            sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            message_id TEXT NOT NULL,
            app_id TEXT NOT NULL,
            payload BYTEA NOT NULL,
            recipients TEXT NOT NULL,
            accepted_at BIGINT NOT NULL,
            command_id TEXT,
            attempts INTEGER NOT NULL,
            failed_at BIGINT NOT NULL,
            reason TEXT NOT NULL
        );
        CREATE INDEX dead_letters_app ON dead_letters(app_id, sequence);
        CREATE TABLE commands (
            app_id TEXT NOT NULL,
            command_id TEXT COLLATE "C" NOT NULL,
            thing_id TEXT NOT NULL,
            issuer TEXT NOT NULL,
            request TEXT NOT NULL,
            action_results TEXT,
            state TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            modified_at BIGINT NOT NULL,
            PRIMARY KEY (app_id, command_id),
            FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX commands_thing ON commands(app_id, thing_id, created_at, command_id);
        CREATE TABLE thing_states (
            sequence BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id TEXT NOT NULL,
            thing_id TEXT NOT NULL,
            state TEXT NOT NULL,
            recorded_at BIGINT NOT NULL,
            FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX thing_states_time ON thing_states(app_id, thing_id, recorded_at);
        CREATE TABLE account_links (
            app_id TEXT NOT NULL,
            provider TEXT NOT NULL,
            external_id TEXT NOT NULL,
            secret_hash TEXT NOT NULL,
            user_id TEXT NOT NULL,
            created_at BIGINT NOT NULL,
            secret_set_at BIGINT NOT NULL,
            last_login_at BIGINT,
            PRIMARY KEY (app_id, provider, external_id, user_id),
            FOREIGN KEY (app_id, user_id) REFERENCES users(app_id, user_id) ON DELETE CASCADE
        );
        CREATE UNIQUE INDEX account_links_secret ON account_links(app_id, provider, external_id, secret_hash);
        CREATE INDEX account_links_user ON account_links(app_id, user_id);
        CREATE TABLE security_audit (
            audit_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            app_id TEXT NOT NULL,
            at BIGINT NOT NULL,
            event TEXT NOT NULL,
            actor TEXT NOT NULL,
            subject_id TEXT,
            account TEXT,
            client_address TEXT,
            detail TEXT NOT NULL
        );
        CREATE INDEX security_audit_app ON security_audit(app_id, audit_id);
        """
}
