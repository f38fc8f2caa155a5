import Testing
import TopicGateCore

@Suite("Identity rules and field parsing")
struct IdentityRulesTests {
    @Test("Login names", arguments: ["abc", "a.b-c_d", String(repeating: "x", count: 64)])
    func goodLoginNames(name: String) throws {
        #expect(try IdentityRules.loginName(name) == name)
    }

    @Test("Bad login names", arguments: ["ab", "a b", "a@b", "+123", "a/b", String(repeating: "x", count: 65)])
    func badLoginNames(name: String) {
        #expect(throws: KiiError.self) { try IdentityRules.loginName(name) }
    }

    @Test("Passwords: too short, too long for bcrypt, control characters")
    func passwords() throws {
        #expect(try IdentityRules.password("12345678") == "12345678")
        let short = #expect(throws: KiiError.self) { try IdentityRules.password("1234567") }
        #expect(short?.code == .passwordTooShort)
        #expect(short?.context["minimumLength"] == 8)
        let long = #expect(throws: KiiError.self) { try IdentityRules.password(String(repeating: "é", count: 37)) }
        #expect(long?.code == .passwordTooLong)
        #expect(throws: KiiError.self) { try IdentityRules.password("pass\u{7}word") }
    }

    @Test("Emails are lower-cased; phones are E.164 with spaces and dashes dropped")
    func addresses() throws {
        #expect(try IdentityRules.emailAddress("A@Example.COM") == "a@example.com")
        #expect(throws: KiiError.self) { try IdentityRules.emailAddress("a@b") }
        #expect(throws: KiiError.self) { try IdentityRules.emailAddress("EMAIL:a@b.c") }
        #expect(try IdentityRules.phoneNumber("+1 555-010-9999") == "+15550109999")
        #expect(throws: KiiError.self) { try IdentityRules.phoneNumber("5550109999") }
    }

    @Test("User fields ignore underscore and read-only keys (Unity sends the whole user back)")
    func userFieldsIgnoreReadOnly() throws {
        let fields = try UserFields(body: [
            "userID": "spoof", "internalUserID": "spoof", "_hasPassword": true, "_disabled": true, "createdAt": 1,
            "loginName": "abc", "password": "password123", "displayName": "A", "hobby": "chess",
        ])
        #expect(fields.loginName == "abc")
        #expect(fields.password == "password123")
        #expect(fields.profile.displayName == "A")
        #expect(fields.profile.customFields == ["hobby": "chess"])
    }

    @Test("Thing fields: predefined keys are typed, unknown underscore keys dropped, ENDNODE read as END_NODE")
    func thingFields() throws {
        let fields = try ThingFields(body: [
            "_thingType": "lamp", "_numberField2": 3, "_layoutPosition": "endnode", "_thingID": "spoof",
            "_password": "secret", "color": "red",
        ])
        #expect(
            fields.values == ["_thingType": "lamp", "_numberField2": 3, "_layoutPosition": "END_NODE", "color": "red"])
        #expect(throws: KiiError.self) { try ThingFields(body: ["_numberField1": "three"]) }
        #expect(throws: KiiError.self) { try ThingFields(body: ["_thingType": 3]) }
    }
}
