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

    @Test(
        "Users' passwords by Kii's rule: 4 to 50 printable ASCII characters, space included; every SDK test password passes",
        arguments: [
            "1234", "dummyPassword", "password", "test12345", "password-1", "123456", "a b ~!",
            String(repeating: "x", count: 50),
        ])
    func userPasswords(password: String) throws {
        #expect(try PasswordRule.user.check(password).text == password)
    }

    @Test("Users' passwords refused: too short, too long, not printable ASCII")
    func badUserPasswords() {
        let short = #expect(throws: KiiError.self) { try PasswordRule.user.check("123") }
        #expect(short?.code == .passwordTooShort)
        #expect(short?.context["minimumLength"] == 4)
        let long = #expect(throws: KiiError.self) { try PasswordRule.user.check(String(repeating: "x", count: 51)) }
        #expect(long?.code == .passwordTooLong)
        #expect(long?.context["maximumLength"] == 50)
        for text in ["pass\u{7}word", "pässword", "tab\tbed", "new\nline"] {
            let refused = #expect(throws: KiiError.self) { try PasswordRule.user.check(text) }
            #expect(refused?.code == .invalidInputData)
        }
    }

    @Test("Things' passwords by Kii's rule: 1 to 200 printable characters")
    func thingPasswords() throws {
        for text in ["x", "dummyPass", "gatewaypass", "pässwörd 秘密", String(repeating: "é", count: 200)] {
            #expect(try PasswordRule.thing.check(text).text == text)
        }
        #expect((try? PasswordRule.thing.check("")) == nil)
        #expect((try? PasswordRule.thing.check(String(repeating: "x", count: 201))) == nil)
        #expect((try? PasswordRule.thing.check("line\nbreak")) == nil)
    }

    @Test("A raised minimum applies up to the maximum")
    func raisedMinimum() {
        let rule = PasswordRule.user.raisingMinimum(to: 12)
        #expect(rule.minimumLength == 12)
        let short = #expect(throws: KiiError.self) { try rule.check("elevenchars") }
        #expect(short?.context["minimumLength"] == 12)
        #expect(PasswordRule.user.raisingMinimum(to: 99).minimumLength == 50)
        #expect(PasswordRule.user.raisingMinimum(to: 2).minimumLength == 4)
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
