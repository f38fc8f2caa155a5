import Testing
import TopicGateCore

@Suite("Kii's query clauses")
struct QueryClauseTests {
    @Test("Clauses nest up to the depth limit; deeper, or too many, is INVALID_INPUT_DATA")
    func limits() throws {
        var clause: JSONValue = ["type": "all"]
        for _ in 1..<QueryClause.maximumDepth { clause = ["type": "not", "clause": clause] }
        _ = try QueryClause(json: clause)
        let deeper = #expect(throws: KiiError.self) { try QueryClause(json: ["type": "not", "clause": clause]) }
        #expect(deeper?.code == .invalidInputData)
        let wide: JSONValue = [
            "type": "or", "clauses": .array(Array(repeating: ["type": "all"], count: QueryClause.maximumClauses)),
        ]
        #expect(throws: KiiError.self) { try QueryClause(json: wide) }
    }

    @Test("A user's thing query must be limited to its own things: alone, in an and, in every branch of an or")
    func ownerRestriction() throws {
        let mine: Set<Owner> = [.user(UserID("u1")), .group(GroupID("g1"))]
        func restricted(_ json: JSONValue) throws -> Bool { try QueryClause(json: json).restricts(toOwners: mine) }
        let me: JSONValue = ["type": "contains", "field": "userOwners", "value": "u1"]
        let group: JSONValue = ["type": "contains", "field": "groupOwners", "value": "g1"]
        #expect(try restricted(me))
        #expect(
            try restricted(["type": "and", "clauses": [me, ["type": "eq", "field": "_thingType", "value": "x"]]]))
        #expect(try restricted(["type": "or", "clauses": [me, group]]))
        #expect(try !restricted(["type": "or", "clauses": [me, ["type": "all"]]]))
        #expect(try !restricted(["type": "contains", "field": "userOwners", "value": "u2"]))
        #expect(try !restricted(["type": "not", "clause": me]))
        #expect(try !restricted(["type": "all"]))
    }

    @Test("A query reads bestEffortLimit as a number or a string, caps it, and reads the clause inside its envelope")
    func request() throws {
        let asString = try QueryRequest(envelope: "userQuery", body: ["userQuery": [:], "bestEffortLimit": "2"])
        #expect(asString.limit == 2 && asString.clause == .all)
        let capped = try QueryRequest(envelope: "thingQuery", body: ["thingQuery": [:], "bestEffortLimit": 5000])
        #expect(capped.limit == QueryRequest.maximumLimit)
        #expect(throws: KiiError.self) {
            try QueryRequest(envelope: "userQuery", body: ["userQuery": [:], "bestEffortLimit": "many"])
        }
        #expect(throws: KiiError.self) { try QueryRequest(envelope: "userQuery", body: ["thingQuery": [:]]) }
    }
}
