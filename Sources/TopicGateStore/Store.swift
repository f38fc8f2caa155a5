/// Everything TopicGate keeps. One implementation per database: `SQLiteStore` (one gateway,
/// one file) and `PostgresStore` (several gateways on one database); the same contract tests
/// run against both. None of them makes an authorization decision.
public protocol Store: AppStore, UserStore, TokenStore, GroupStore, ThingStore, TopicStore, InstallationStore,
    OutboxStore,
    CommandStore, ThingStateStore, AccountLinkStore, SecurityAuditStore, JobLeaseStore, AbuseRecordStore, OperatorStore,
    DeliveryTraceStore, EndNodeStore, QueryStore
{
    /// Moves on with every committed change that can alter access, when the store sees them
    /// all at once; nil when it cannot (then nothing about access may be cached).
    var accessGeneration: AccessGeneration? { get }
    /// Moves on with every committed change of which devices a push goes to (an installation
    /// registered, revoked, deleted or moved to another broker), under the same condition.
    var installationGeneration: AccessGeneration? { get }
}
