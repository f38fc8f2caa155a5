public import TopicGateCore

/// Applying a list of ACL changes to a topic's entries, worked out before anything is written:
/// every store runs the same steps (one row added or removed, one audit record each) in one
/// transaction, or throws before writing when a change cannot apply. The gateway also works one
/// out alone to preview a batch (`?dryRun=true`).
public struct ACLChangePlan: Sendable {
    /// One change that applies, with the entries before and after it (for its audit record).
    struct Step: Sendable {
        let change: ACLChange
        let entriesBefore: [ACLEntry]
        let entriesAfter: [ACLEntry]

        var before: [String] { entriesBefore.map(\.description) }
        var after: [String] { entriesAfter.map(\.description) }
    }

    let steps: [Step]
    /// The entries once every change applied, sorted.
    public let entries: [ACLEntry]

    /// A grant of an entry that exists throws `ACL_ALREADY_EXISTS`, a revoke of one that does
    /// not `ACL_NOT_FOUND`, each with the index of the change.
    public init(entries current: [ACLEntry], changes: [ACLChange]) throws {
        var entries = current.sorted()
        var steps: [Step] = []
        for (index, change) in changes.enumerated() {
            let before = entries
            switch (change.kind, entries.firstIndex { $0.matches(change.entry) }) {
            case (.grant, nil):
                entries.append(ACLEntry(change.entry.action, change.entry.subject))
            case (.revoke, let existing?):
                entries.remove(at: existing)
            case (.grant, _?):
                throw KiiError(
                    .aclAlreadyExists, "The entry \(change.entry) exists already.",
                    context: StoredForm.changeContext(index, change))
            case (.revoke, nil):
                throw KiiError(
                    .aclNotFound, "There is no entry \(change.entry).", context: StoredForm.changeContext(index, change)
                )
            }
            entries.sort()
            steps.append(Step(change: change, entriesBefore: before, entriesAfter: entries))
        }
        self.steps = steps
        self.entries = entries
    }
}
