import Crypto
import Foundation
import MQTTBridge
import Testing
import TopicGateAuthCore
import TopicGateCore

/// The compact MQTT password the gateway issues by default, checked by the plugin's
/// `tg_password_verify`: short enough for Kii's C thing SDK, and as strict as the JWT form.
@Suite("Plugin: compact password verification")
struct CompactPasswordTests {
    static let secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    static let now: UnixSeconds = 1_800_000_000
    let signer = MQTTCredentialSigner(secret: Self.secret)

    func verify(_ password: String, username: String, secret: String = Self.secret, now: UnixSeconds = Self.now)
        -> tg_jwt_result
    {
        let key = Array(secret.utf8)
        return key.withUnsafeBufferPointer {
            tg_password_verify(password, $0.baseAddress, $0.count, username, now.rawValue)
        }
    }

    @Test("A device password is at most 64 characters, starts k1. and verifies for its username")
    func fitsAndVerifies() {
        // A 25-character topic, as installations get, and the longest expiry of this century.
        let topic = "hJrBrz5bosv3pLFUDmtd0xT12"
        let password = signer.devicePassword(topic: topic, issuedAt: Self.now, expiresAt: 4_102_444_800)
        #expect(password.count <= 64)
        #expect(password.hasPrefix("k1."))
        #expect(verify(password, username: topic) == TG_JWT_OK)
        let gateway = signer.gatewayPassword(
            username: "topicgate", issuedAt: Self.now, expiresAt: Self.now + .seconds(60))
        #expect(verify(gateway, username: "topicgate") == TG_JWT_OK)
    }

    @Test("Another username, another secret, a changed expiry or signature, or an expired password is refused")
    func refusals() {
        let password = signer.devicePassword(topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        #expect(verify(password, username: "dev-abd") == TG_JWT_BAD_SIGNATURE)
        #expect(verify(password, username: "dev-abc", secret: String(Self.secret.reversed())) == TG_JWT_BAD_SIGNATURE)
        #expect(verify(password, username: "dev-abc", now: Self.now + .seconds(3600)) == TG_JWT_EXPIRED)
        #expect(verify(password, username: "dev-abc", now: Self.now + .seconds(3599)) == TG_JWT_OK)

        // The expiry pushed out under the same signature.
        let parts = password.split(separator: ".")
        #expect(verify("k1.\(Self.now + .seconds(999_999)).\(parts[2])", username: "dev-abc") == TG_JWT_BAD_SIGNATURE)
        var bytes = Array(password.utf8)
        bytes[bytes.count - 2] = bytes[bytes.count - 2] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(verify(String(decoding: bytes, as: UTF8.self), username: "dev-abc") == TG_JWT_BAD_SIGNATURE)
    }

    @Test("Malformed compact passwords are refused, never accepted")
    func malformed() {
        let password = signer.devicePassword(topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        let mac = String(password.split(separator: ".")[2])
        for bad in [
            "k1.", "k1..\(mac)", "k1.12x4.\(mac)", "k1.\(Self.now + .seconds(3600))",
            "k1.\(Self.now + .seconds(3600)).",
            "k1.\(Self.now + .seconds(3600)).\(mac)!", "k1.0\(Self.now + .seconds(3600)).\(mac)", "k1.-5.\(mac)",
            "k1.99999999999999999999.\(mac)", "k1.\(Self.now + .seconds(3600)).\(mac)\(mac)",
        ] {
            #expect(verify(bad, username: "dev-abc") != TG_JWT_OK, "\(bad)")
        }
        // A username longer than any buffer cannot be used to overflow the signing input.
        #expect(verify(password, username: String(repeating: "a", count: 4000)) != TG_JWT_OK)
    }

    @Test("The JWT form, asked for by flag, still verifies through the same entry point")
    func jwtForm() {
        let jwt = MQTTCredentialSigner(secret: Self.secret, form: .jwt)
        let token = jwt.devicePassword(topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        #expect(token.count > 127)
        #expect(verify(token, username: "dev-abc") == TG_JWT_OK)
        #expect(verify(token, username: "dev-xyz") == TG_JWT_WRONG_SUBJECT)
    }

    @Test("During a rotation a password signed with the previous secret is accepted, nothing else more")
    func rotation() {
        let old = Self.secret
        let new = String(old.reversed())
        let other = String(repeating: "f", count: 64)
        func verify(_ password: String, previous: String?, now: UnixSeconds = Self.now) -> tg_jwt_result {
            let current = Array(new.utf8)
            let before = previous.map { Array($0.utf8) } ?? []
            return current.withUnsafeBufferPointer { current in
                before.withUnsafeBufferPointer { before in
                    tg_password_verify_rotating(
                        password, current.baseAddress, current.count, previous == nil ? nil : before.baseAddress,
                        before.count, "dev-abc", now.rawValue)
                }
            }
        }
        let signedOld = MQTTCredentialSigner(secret: old).devicePassword(
            topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        let signedNew = MQTTCredentialSigner(secret: new).devicePassword(
            topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        let signedOther = MQTTCredentialSigner(secret: other).devicePassword(
            topic: "dev-abc", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        #expect(verify(signedNew, previous: old) == TG_JWT_OK)
        #expect(verify(signedOld, previous: old) == TG_JWT_OK)
        #expect(verify(signedOld, previous: nil) == TG_JWT_BAD_SIGNATURE)
        #expect(verify(signedOther, previous: old) == TG_JWT_BAD_SIGNATURE)
        // Expired is expired, whichever secret signed it.
        #expect(verify(signedOld, previous: old, now: Self.now + .seconds(3600)) == TG_JWT_EXPIRED)
    }
}
