import Crypto
import Foundation
import MQTTBridge
import Testing
import TopicGateAuthCore
import TopicGateCore

/// The plugin's password check, `tg_jwt_verify`, against tokens signed by the gateway's
/// `MQTTCredentialSigner` and against hand-made forgeries.
@Suite("Plugin: JWT password verification")
struct JWTVerificationTests {
    static let secret = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
    static let now: UnixSeconds = 1_800_000_000

    func verify(_ token: String, username: String, secret: String = Self.secret, now: UnixSeconds = Self.now)
        -> tg_jwt_result
    {
        let key = Array(secret.utf8)
        return key.withUnsafeBufferPointer { tg_jwt_verify(token, $0.baseAddress, $0.count, username, now.rawValue) }
    }

    /// A token made by hand, for the forgeries the signer would never produce.
    func handMade(header: String, claims: String, key: String = Self.secret) -> String {
        let input = Base64URL.encode(Data(header.utf8)) + "." + Base64URL.encode(Data(claims.utf8))
        let mac = HMAC<SHA256>.authenticationCode(for: Array(input.utf8), using: SymmetricKey(data: Array(key.utf8)))
        return input + "." + Base64URL.encode(Data(mac))
    }

    @Test("A device password signed by the gateway is accepted for its own username")
    func gatewaySignedTokenVerifies() {
        let signer = MQTTCredentialSigner(secret: Self.secret, form: .jwt)
        let token = signer.devicePassword(
            topic: "dev-abc", issuedAt: Self.now - .seconds(10), expiresAt: Self.now + .seconds(3600))
        #expect(verify(token, username: "dev-abc") == TG_JWT_OK)
        let gateway = signer.gatewayPassword(
            username: "topicgate", issuedAt: Self.now, expiresAt: Self.now + .seconds(60))
        #expect(verify(gateway, username: "topicgate") == TG_JWT_OK)
    }

    @Test("Another device's token, another secret, a changed byte or an expired token is refused")
    func refusals() {
        let signer = MQTTCredentialSigner(secret: Self.secret, form: .jwt)
        let token = signer.devicePassword(
            topic: "dev-abc", issuedAt: Self.now - .seconds(10), expiresAt: Self.now + .seconds(3600))
        #expect(verify(token, username: "dev-xyz") == TG_JWT_WRONG_SUBJECT)
        #expect(verify(token, username: "dev-abc", secret: String(Self.secret.reversed())) == TG_JWT_BAD_SIGNATURE)
        #expect(verify(token, username: "dev-abc", now: Self.now + .seconds(3600)) == TG_JWT_EXPIRED)
        #expect(verify(token, username: "dev-abc", now: Self.now + .seconds(3599)) == TG_JWT_OK)

        var bytes = Array(token.utf8)
        let last = bytes.count - 1
        bytes[last] = bytes[last] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(verify(String(decoding: bytes, as: UTF8.self), username: "dev-abc") == TG_JWT_BAD_SIGNATURE)

        // A payload swapped under a valid signature.
        let other = signer.devicePassword(topic: "dev-xyz", issuedAt: Self.now, expiresAt: Self.now + .seconds(3600))
        let parts = token.split(separator: ".")
        let otherParts = other.split(separator: ".")
        let spliced = "\(parts[0]).\(otherParts[1]).\(parts[2])"
        #expect(verify(spliced, username: "dev-xyz") == TG_JWT_BAD_SIGNATURE)
    }

    @Test("alg none, RS256 and a missing alg are refused even with a matching HMAC")
    func algorithmConfusion() {
        let claims = #"{"sub":"dev-abc","exp":1900000000}"#
        #expect(
            verify(handMade(header: #"{"alg":"none"}"#, claims: claims), username: "dev-abc") == TG_JWT_BAD_ALGORITHM)
        #expect(
            verify(handMade(header: #"{"alg":"RS256"}"#, claims: claims), username: "dev-abc") == TG_JWT_BAD_ALGORITHM)
        #expect(
            verify(handMade(header: #"{"typ":"JWT"}"#, claims: claims), username: "dev-abc") == TG_JWT_BAD_ALGORITHM)
        #expect(
            verify(handMade(header: #"{"alg":"hs256"}"#, claims: claims), username: "dev-abc") == TG_JWT_BAD_ALGORITHM)
        let unsigned = Base64URL.encode(Data(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Data(claims.utf8)) + "."
        #expect(verify(unsigned, username: "dev-abc") != TG_JWT_OK)
        #expect(verify(handMade(header: #"{"alg":"HS256"}"#, claims: claims), username: "dev-abc") == TG_JWT_OK)
    }

    @Test("Claims without exp, with a string exp or without sub are refused")
    func claimsChecks() {
        let header = #"{"alg":"HS256","typ":"JWT"}"#
        #expect(verify(handMade(header: header, claims: #"{"sub":"dev-abc"}"#), username: "dev-abc") == TG_JWT_EXPIRED)
        #expect(
            verify(handMade(header: header, claims: #"{"sub":"dev-abc","exp":"1900000000"}"#), username: "dev-abc")
                == TG_JWT_EXPIRED)
        #expect(
            verify(handMade(header: header, claims: #"{"exp":1900000000}"#), username: "dev-abc")
                == TG_JWT_WRONG_SUBJECT)
        #expect(
            verify(handMade(header: header, claims: #"{"sub":["dev-abc"],"exp":1900000000}"#), username: "dev-abc")
                == TG_JWT_WRONG_SUBJECT)
    }

    @Test(
        "Garbage is malformed, never a crash",
        arguments: [
            "", ".", "..", "a.b.c", "a.b", "a.b.c.d", "!!!.###.$$$", "e30.e30.", "W10.W10.AAAA",
            String(repeating: "a", count: 5000) + ".e30.AAAA",
        ])
    func malformed(token: String) {
        let result = verify(token, username: "dev-abc")
        #expect(result != TG_JWT_OK)
        #expect(String(cString: tg_jwt_result_name(result)).isEmpty == false)
    }
}
