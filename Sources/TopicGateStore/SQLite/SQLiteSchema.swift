import GRDB

/// The schema, as a list of migrations that only ever grows. Every table carries `app_id`.
enum SQLiteSchema {
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-identity") { db in
            try db.execute(
                sql: """
                    CREATE TABLE apps (
                        app_id TEXT PRIMARY KEY,
                        app_key TEXT NOT NULL,
                        client_id TEXT NOT NULL UNIQUE,
                        client_secret_hash TEXT NOT NULL,
                        name TEXT NOT NULL,
                        created_at INTEGER NOT NULL
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
                        disabled INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL,
                        modified_at INTEGER NOT NULL,
                        last_seen_at INTEGER NOT NULL,
                        PRIMARY KEY (app_id, user_id)
                    );
                    CREATE UNIQUE INDEX users_login_name ON users(app_id, login_name COLLATE NOCASE)
                        WHERE login_name IS NOT NULL;
                    CREATE UNIQUE INDEX users_email_address ON users(app_id, email_address)
                        WHERE email_address IS NOT NULL;
                    CREATE UNIQUE INDEX users_phone_number ON users(app_id, phone_number)
                        WHERE phone_number IS NOT NULL;
                    CREATE TABLE tokens (
                        token_hash TEXT PRIMARY KEY,
                        app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
                        principal_kind TEXT NOT NULL,
                        principal_id TEXT NOT NULL,
                        expires_at INTEGER,
                        created_at INTEGER NOT NULL
                    );
                    CREATE INDEX tokens_principal ON tokens(app_id, principal_kind, principal_id);
                    CREATE TABLE groups (
                        app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
                        group_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        owner_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        modified_at INTEGER NOT NULL,
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
                        disabled INTEGER NOT NULL DEFAULT 0,
                        created_at INTEGER NOT NULL,
                        modified_at INTEGER NOT NULL,
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
                    """)
        }
        migrator.registerMigration("v2-topics") { db in
            try db.execute(
                sql: """
                    CREATE TABLE topics (
                        topic_id INTEGER PRIMARY KEY,
                        app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
                        scope_kind TEXT NOT NULL CHECK (scope_kind IN ('app', 'group', 'user', 'thing')),
                        scope_id TEXT NOT NULL,
                        name TEXT NOT NULL,
                        creator_kind TEXT NOT NULL,
                        creator_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        UNIQUE (app_id, scope_kind, scope_id, name)
                    );
                    CREATE TABLE acl_entries (
                        topic_id INTEGER NOT NULL REFERENCES topics(topic_id) ON DELETE CASCADE,
                        action TEXT NOT NULL,
                        subject TEXT NOT NULL,
                        is_default INTEGER NOT NULL,
                        PRIMARY KEY (topic_id, action, subject)
                    );
                    CREATE INDEX acl_entries_subject ON acl_entries(subject);
                    CREATE TABLE subscriptions (
                        topic_id INTEGER NOT NULL REFERENCES topics(topic_id) ON DELETE CASCADE,
                        subscriber_kind TEXT NOT NULL CHECK (subscriber_kind IN ('user', 'thing')),
                        subscriber_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        PRIMARY KEY (topic_id, subscriber_kind, subscriber_id)
                    );
                    CREATE INDEX subscriptions_subscriber ON subscriptions(subscriber_kind, subscriber_id);
                    CREATE TABLE acl_audit (
                        audit_id INTEGER PRIMARY KEY,
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
                        at INTEGER NOT NULL
                    );
                    CREATE INDEX acl_audit_topic ON acl_audit(app_id, scope_kind, scope_id, name, audit_id);
                    """)
        }
        migrator.registerMigration("v3-push") { db in
            try db.execute(
                sql: """
                    CREATE TABLE installations (
                        installation_id TEXT PRIMARY KEY,
                        app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
                        principal_kind TEXT NOT NULL CHECK (principal_kind IN ('user', 'thing')),
                        principal_id TEXT NOT NULL,
                        device_type TEXT NOT NULL,
                        registration_id TEXT NOT NULL,
                        mqtt_topic TEXT NOT NULL UNIQUE,
                        development INTEGER NOT NULL,
                        created_at INTEGER NOT NULL,
                        token_hash TEXT,
                        credentials_expire_at INTEGER,
                        revoked_at INTEGER
                    );
                    CREATE INDEX installations_principal ON installations(app_id, principal_kind, principal_id);
                    CREATE INDEX installations_registration ON installations(app_id, device_type, registration_id);
                    CREATE INDEX installations_token ON installations(token_hash);
                    CREATE INDEX installations_revoked ON installations(revoked_at) WHERE revoked_at IS NOT NULL;
                    CREATE TABLE outbox (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        message_id TEXT NOT NULL UNIQUE,
                        app_id TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        recipients TEXT NOT NULL,
                        accepted_at INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v4-thing-if") { db in
            try db.execute(
                sql: """
                    CREATE TABLE commands (
                        app_id TEXT NOT NULL,
                        command_id TEXT NOT NULL,
                        thing_id TEXT NOT NULL,
                        issuer TEXT NOT NULL,
                        request TEXT NOT NULL,
                        action_results TEXT,
                        state TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        modified_at INTEGER NOT NULL,
                        PRIMARY KEY (app_id, command_id),
                        FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
                    );
                    CREATE INDEX commands_thing ON commands(app_id, thing_id, created_at, command_id);
                    CREATE TABLE thing_states (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        app_id TEXT NOT NULL,
                        thing_id TEXT NOT NULL,
                        state TEXT NOT NULL,
                        recorded_at INTEGER NOT NULL,
                        FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
                    );
                    CREATE INDEX thing_states_time ON thing_states(app_id, thing_id, recorded_at);
                    ALTER TABLE outbox ADD COLUMN command_id TEXT;
                    """)
        }
        migrator.registerMigration("v5-links-and-audit") { db in
            try db.execute(
                sql: """
                    CREATE TABLE account_links (
                        app_id TEXT NOT NULL,
                        provider TEXT NOT NULL,
                        external_id TEXT NOT NULL,
                        secret_hash TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        secret_set_at INTEGER NOT NULL,
                        last_login_at INTEGER,
                        PRIMARY KEY (app_id, provider, external_id),
                        FOREIGN KEY (app_id, user_id) REFERENCES users(app_id, user_id) ON DELETE CASCADE
                    );
                    CREATE INDEX account_links_user ON account_links(app_id, user_id);
                    CREATE TABLE security_audit (
                        audit_id INTEGER PRIMARY KEY,
                        app_id TEXT NOT NULL,
                        at INTEGER NOT NULL,
                        event TEXT NOT NULL,
                        actor TEXT NOT NULL,
                        subject_id TEXT,
                        account TEXT,
                        client_address TEXT,
                        detail TEXT NOT NULL
                    );
                    CREATE INDEX security_audit_app ON security_audit(app_id, audit_id);
                    CREATE INDEX users_idle_pseudo ON users(last_seen_at) WHERE password_hash IS NULL;
                    """)
        }
        migrator.registerMigration("v6-dead-letters") { db in
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE dead_letters (
                        sequence INTEGER PRIMARY KEY AUTOINCREMENT,
                        message_id TEXT NOT NULL,
                        app_id TEXT NOT NULL,
                        payload BLOB NOT NULL,
                        recipients TEXT NOT NULL,
                        accepted_at INTEGER NOT NULL,
                        command_id TEXT,
                        attempts INTEGER NOT NULL,
                        failed_at INTEGER NOT NULL,
                        reason TEXT NOT NULL
                    );
                    CREATE INDEX dead_letters_app ON dead_letters(app_id, sequence);
                    """)
        }
        migrator.registerMigration("v7-links-per-user") { db in
            // A pair may be linked by several users, each with its own secret: squatting on
            // someone's external ID no longer blocks them.
            try db.execute(
                sql: """
                    CREATE TABLE account_links_v7 (
                        app_id TEXT NOT NULL,
                        provider TEXT NOT NULL,
                        external_id TEXT NOT NULL,
                        secret_hash TEXT NOT NULL,
                        user_id TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        secret_set_at INTEGER NOT NULL,
                        last_login_at INTEGER,
                        PRIMARY KEY (app_id, provider, external_id, user_id),
                        FOREIGN KEY (app_id, user_id) REFERENCES users(app_id, user_id) ON DELETE CASCADE
                    );
                    INSERT INTO account_links_v7 SELECT app_id, provider, external_id, secret_hash, user_id, created_at,
                        secret_set_at, last_login_at FROM account_links;
                    DROP TABLE account_links;
                    ALTER TABLE account_links_v7 RENAME TO account_links;
                    CREATE UNIQUE INDEX account_links_secret ON account_links(app_id, provider, external_id,
                        secret_hash);
                    CREATE INDEX account_links_user ON account_links(app_id, user_id);
                    """)
        }
        migrator.registerMigration("v8-fleet") { db in
            // Which gateway delivers a message, until when; which runs a scheduled job; the
            // abuse controls' records when gateways share them.
            try db.execute(
                sql: """
                    ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
                    ALTER TABLE outbox ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;
                    CREATE TABLE job_leases (
                        job TEXT PRIMARY KEY,
                        holder TEXT NOT NULL,
                        lease_until INTEGER NOT NULL
                    );
                    CREATE TABLE abuse_records (
                        key TEXT PRIMARY KEY,
                        record TEXT NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    """)
        }
        migrator.registerMigration("v9-brokers") { db in
            // Which broker serves an installation; which brokers have a message already.
            try db.execute(
                sql: """
                    ALTER TABLE installations ADD COLUMN broker TEXT;
                    ALTER TABLE outbox ADD COLUMN delivered_brokers TEXT;
                    ALTER TABLE dead_letters ADD COLUMN delivered_brokers TEXT;
                    CREATE INDEX installations_broker ON installations(broker) WHERE revoked_at IS NULL;
                    """)
        }
        migrator.registerMigration("v10-console") { db in
            // When each device was last seen; test pushes traced to each device.
            try db.execute(sql: SQLiteSchema.console)
        }
        migrator.registerMigration("v11-quotas") { db in
            // A principal's topics counted against its quota; the ACL audit pruned by age.
            try db.execute(
                sql: """
                    CREATE INDEX topics_creator ON topics(app_id, creator_kind, creator_id);
                    CREATE INDEX acl_audit_age ON acl_audit(at);
                    """)
        }
        migrator.registerMigration("v12-gateways-traits-queries") { db in
            // Thing-IF gateways and the end nodes they relay for; states kept per trait alias;
            // indexes for the user and thing queries.
            try db.execute(sql: SQLiteSchema.gatewaysTraitsQueries)
        }
        migrator.registerMigration("v13-push-endpoints") { db in
            // What a push reads of each recipient's live MQTT installations, answered from this
            // index alone: a send to 100 000 devices reads 100 000 entries of it, where it read
            // as many of the principal index and then each installation's row.
            try db.execute(
                sql: """
                    CREATE INDEX installations_push ON installations(
                        app_id, principal_kind, principal_id, created_at, installation_id, mqtt_topic, broker,
                        device_type, revoked_at)
                    WHERE revoked_at IS NULL AND device_type = 'MQTT';
                    """)
        }
        migrator.registerMigration("v14-command-states-relays") { db in
            // Command states as Kii's server sets them (no DELIVERED: when a broker took a command
            // is its published_at); tokens a gateway minted for its end node.
            try db.execute(sql: SQLiteSchema.commandStatesRelays)
        }
        migrator.registerMigration("v15-triggers") { db in
            // Thing-IF triggers; the apps' configuration parameters.
            try db.execute(sql: SQLiteSchema.triggers)
        }
        return migrator
    }

    static let triggers = """
        CREATE TABLE triggers (
            app_id TEXT NOT NULL,
            trigger_id TEXT NOT NULL,
            thing_id TEXT NOT NULL,
            predicate TEXT NOT NULL,
            command TEXT NOT NULL,
            title TEXT,
            description TEXT,
            metadata TEXT,
            disabled INTEGER NOT NULL DEFAULT 0,
            disabled_reason TEXT,
            last_matched INTEGER,
            next_due_at INTEGER,
            created_at INTEGER NOT NULL,
            modified_at INTEGER NOT NULL,
            PRIMARY KEY (app_id, trigger_id),
            FOREIGN KEY (app_id, thing_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX triggers_thing ON triggers(app_id, thing_id, trigger_id);
        CREATE INDEX triggers_due ON triggers(next_due_at) WHERE next_due_at IS NOT NULL AND disabled = 0;
        CREATE TABLE app_parameters (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (app_id, name)
        );
        """

    static let commandStatesRelays = """
        ALTER TABLE commands ADD COLUMN published_at INTEGER;
        UPDATE commands SET state = 'SENDING', published_at = modified_at WHERE state = 'DELIVERED';
        ALTER TABLE tokens ADD COLUMN relayed_by TEXT;
        """

    static let console = """
        ALTER TABLE installations ADD COLUMN last_seen_at INTEGER;
        ALTER TABLE outbox ADD COLUMN traced INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE dead_letters ADD COLUMN traced INTEGER NOT NULL DEFAULT 0;
        CREATE TABLE push_deliveries (
            app_id TEXT NOT NULL REFERENCES apps(app_id) ON DELETE CASCADE,
            message_id TEXT NOT NULL,
            installation_id TEXT NOT NULL,
            principal_kind TEXT NOT NULL,
            principal_id TEXT NOT NULL,
            mqtt_topic TEXT NOT NULL,
            state TEXT NOT NULL,
            detail TEXT,
            at INTEGER NOT NULL,
            PRIMARY KEY (app_id, message_id, installation_id)
        );
        CREATE INDEX push_deliveries_age ON push_deliveries(at);
        """

    static let gatewaysTraitsQueries = """
        CREATE TABLE end_nodes (
            app_id TEXT NOT NULL,
            end_node_id TEXT NOT NULL,
            gateway_id TEXT NOT NULL,
            added_at INTEGER NOT NULL,
            online INTEGER,
            online_modified_at INTEGER,
            PRIMARY KEY (app_id, end_node_id),
            FOREIGN KEY (app_id, end_node_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE,
            FOREIGN KEY (app_id, gateway_id) REFERENCES things(app_id, thing_id) ON DELETE CASCADE
        );
        CREATE INDEX end_nodes_gateway ON end_nodes(app_id, gateway_id, end_node_id);
        ALTER TABLE thing_states ADD COLUMN alias TEXT;
        CREATE INDEX thing_states_alias ON thing_states(app_id, thing_id, alias, recorded_at);
        CREATE INDEX users_display_name ON users(app_id, display_name, user_id) WHERE display_name IS NOT NULL;
        CREATE INDEX users_created ON users(app_id, created_at, user_id);
        CREATE INDEX things_type ON things(app_id, json_extract(fields, '$._thingType'));
        """
}
