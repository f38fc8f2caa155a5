/// Everything TopicGate keeps. One implementation per database: `SQLiteStore` (one gateway,
/// one file) and `PostgresStore` (several gateways on one database); the same contract tests
/// run against both. None of them makes an authorization decision.
public protocol Store: AppStore, UserStore, TokenStore, GroupStore, ThingStore, TopicStore, InstallationStore,
    OutboxStore,
    CommandStore, ThingStateStore, AccountLinkStore, SecurityAuditStore, JobLeaseStore, AbuseRecordStore, OperatorStore,
    DeliveryTraceStore, EndNodeStore, QueryStore, TriggerStore, StatesCaching
{}
