import MQTTBridge
import Testing
import TopicGateAuthCore

/// The shared secret file is read by one rule in the gateway (`MQTTSecretText`) and in the
/// broker plugin (`tg_secret_parse`): both take the same bytes from the same file, or both
/// refuse it.
@Suite("The MQTT secret file, read alike by the gateway and the plugin")
struct SecretFileTests {
    static let secret = String(repeating: "0123456789abcdef", count: 4)

    /// The plugin's reading: the secret's bytes, or "short" / "long".
    func plugin(_ contents: [UInt8]) -> Result<[UInt8], MQTTSecretText.Failure> {
        var start = 0
        var length = 0
        let parsed = contents.withUnsafeBufferPointer { tg_secret_parse($0.baseAddress, $0.count, &start, &length) }
        switch parsed {
        case 0: return .success(Array(contents[start..<start + length]))
        case -1: return .failure(.tooShort)
        default: return .failure(.tooLong)
        }
    }

    func gateway(_ contents: [UInt8]) -> Result<[UInt8], MQTTSecretText.Failure> {
        Result { () throws(MQTTSecretText.Failure) in try MQTTSecretText.parse(contents) }
    }

    @Test(
        "Blanks around the secret are dropped alike; short and long files are refused alike",
        arguments: [
            secret, secret + "\n", " \t" + secret + "\r\n", "\n\n" + secret, secret + "  \t ",
            "  " + secret.prefix(31) + "  \n", String(secret.prefix(32)), "a b" + secret, secret + "\u{0B}",
            String(repeating: "x", count: 1024), String(repeating: "x", count: 1025),
            "\t" + String(repeating: "y", count: 1024) + "\n",
            "", "\n",
        ])
    func sameReading(_ contents: String) {
        let bytes = Array(contents.utf8)
        #expect(plugin(bytes) == gateway(bytes))
    }

    @Test("What each reads")
    func readings() throws {
        #expect(try gateway(Array((" \t" + Self.secret + "\r\n").utf8)).get() == Array(Self.secret.utf8))
        #expect(gateway(Array(Self.secret.prefix(31).utf8)) == .failure(.tooShort))
        #expect(gateway(Array(String(repeating: "x", count: 1025).utf8)) == .failure(.tooLong))
        // Interior blanks belong to the secret.
        #expect(try gateway(Array(("a b" + Self.secret).utf8)).get().count == 67)
    }
}
