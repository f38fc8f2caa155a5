import Testing

@testable import TopicGateServer

@Suite("Random secrets and IDs")
struct SecretsTests {
    @Test("Random bytes come in any count, and differ from call to call")
    func bytes() {
        for count in [0, 1, 7, 8, 9, 12, 32, 33] { #expect(Secrets.randomBytes(count).count == count) }
        #expect(Secrets.randomBytes(32) != Secrets.randomBytes(32))
        #expect(Secrets.randomHex(bytes: 12).count == 24)
        #expect(Secrets.accessToken().count == 43)
    }

    @Test("Alphanumeric IDs have the length asked, only lower-case letters and digits, and use all 36")
    func alphanumeric() {
        let alphabet = Set("0123456789abcdefghijklmnopqrstuvwxyz")
        var seen: Set<Character> = []
        for _ in 0..<200 {
            let id = Secrets.randomAlphanumeric(25)
            #expect(id.count == 25)
            #expect(id.allSatisfy(alphabet.contains))
            seen.formUnion(id)
        }
        // 5 000 symbols: each of the 36 turns up about 139 times.
        #expect(seen == alphabet)
        #expect(Secrets.randomAlphanumeric(0).isEmpty)
    }
}
