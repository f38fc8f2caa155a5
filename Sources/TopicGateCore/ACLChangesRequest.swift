/// The body of `POST …/topics/{topic}/acl`, our batch extension:
/// `{"changes": [{"change": "grant"|"revoke", "action": …, "subject": …}, …]}`.
public struct ACLChangesRequest: JSONRequestBody, Hashable {
    public var changes: [ACLChange]

    public init(body: [String: JSONValue]) throws(KiiError) {
        guard let list = body["changes"]?.arrayValue else {
            throw KiiError.invalidInput("The body needs a 'changes' array.", field: "changes")
        }
        changes = []
        for (index, element) in list.enumerated() {
            guard let object = element.objectValue,
                let kind = object["change"]?.stringValue.flatMap(ACLChange.Kind.init(rawValue:)),
                let action = object["action"]?.stringValue.flatMap(ACLAction.init(rawValue:)),
                let subject = object["subject"]?.stringValue.flatMap(ACLSubject.init(parsing:))
            else {
                throw KiiError(
                    .invalidInputData,
                    "Change \(index) needs 'change' (grant or revoke), 'action' and 'subject' (e.g. UserID:ID).",
                    context: ["failedChangeIndex": .int(Int64(index)), "field": "changes"])
            }
            changes.append(ACLChange(kind, ACLEntry(action, subject)))
        }
    }
}
