/// Everything TopicGate keeps. One implementation per database (`SQLiteStore`; PostgreSQL is
/// planned); none of them makes an authorization decision.
public protocol Store: AppStore, UserStore, TokenStore, GroupStore, ThingStore, TopicStore, InstallationStore,
    OutboxStore,
    CommandStore, ThingStateStore, AccountLinkStore, SecurityAuditStore
{}
