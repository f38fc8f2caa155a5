import TopicGateCore

/// How long a topic's ACL audit records are kept: a change of an ACL removes the records older
/// than this, in the same transaction (an index on their time makes that cheap); on PostgreSQL
/// at most one change a minute does (`AuditPruning`).
public enum AuditRetention {
    public static let span: Duration = .days(90)
}
