import Testing
import TopicGateCore

@Suite("Account link requests")
struct AccountLinkRequestTests {
    static func body(_ secret: String, provider: String = "icloud", externalID: String = "_abc") -> [String: JSONValue]
    {
        ["provider": .string(provider), "externalID": .string(externalID), "secret": .string(secret)]
    }

    @Test("A secret's capacity is judged by its alphabet: hex 4 bits, base64 6, other printable text 6.5")
    func capacity() {
        #expect(AccountLinkRequest.capacityBits(String(repeating: "a1", count: 16)) == 128)
        #expect(AccountLinkRequest.capacityBits("q83vEjRWeJq83vEjRWeJq8") == 132)
        #expect(AccountLinkRequest.capacityBits("q83vEjRWeJq83vEjRWeJq8==") == 132)
        #expect(AccountLinkRequest.capacityBits("correct horse battery!") == 143)
    }

    @Test(
        "Enough random bits pass",
        arguments: [
            "9f86d081884c7d659a2feaa0c55ad015", "n4bQgYhMfWWaL-qgxVrQFa", "4Kd9/x+2mZqLw7Rt0bVnYc==",
            "a passphrase of several words, long enough",
        ])
    func strong(secret: String) throws {
        #expect(try AccountLinkRequest(linking: Self.body(secret)).secret == secret)
    }

    @Test(
        "Too few bits, or too few distinct characters, are refused",
        arguments: [
            "9f86d081884c7d659a2feaa0c55ad01", "n4bQgYhMfWWaL-qgxVrQF", "00000000000000000000000000000000000000",
            "abababababababababababababababab", "",
        ])
    func weak(secret: String) {
        #expect(throws: KiiError.self) { try AccountLinkRequest(linking: Self.body(secret)) }
    }

    @Test("A login takes any secret; names are checked for both")
    func namesAndLogin() throws {
        #expect(try AccountLinkRequest(login: Self.body("x")).secret == "x")
        for provider in ["", "i cloud", "icloud/x", String(repeating: "p", count: 65)] {
            #expect(throws: KiiError.self) { try AccountLinkRequest(login: Self.body("x", provider: provider)) }
        }
        for externalID in ["", "tab\there", String(repeating: "e", count: 256)] {
            #expect(throws: KiiError.self) { try AccountLinkRequest(login: Self.body("x", externalID: externalID)) }
        }
        #expect(throws: KiiError.self) { try AccountLinkRequest(login: ["provider": "icloud", "externalID": "_a"]) }
        #expect(throws: KiiError.self) { try AccountLinkRequest(login: Self.body(String(repeating: "s", count: 1025))) }
    }

    @Test("A rotation needs the old secret; rotate must be a boolean")
    func rotation() throws {
        var body = Self.body("9f86d081884c7d659a2feaa0c55ad015")
        body["rotate"] = true
        #expect(throws: KiiError.self) { try AccountLinkRequest(linking: body) }
        body["oldSecret"] = "old"
        #expect(try AccountLinkRequest(linking: body).rotate)
        body["rotate"] = "yes"
        #expect(throws: KiiError.self) { try AccountLinkRequest(linking: body) }
    }
}
