import Crypto
import Foundation
import MQTTBridge

/// Random secrets and IDs, and the one-way hashes they are stored as.
public enum Secrets {
    /// An access token: 256 random bits, base64url without padding (43 characters).
    public static func accessToken() -> String {
        Base64URL.encode(Data(randomBytes(32)))
    }

    /// Hex SHA-256 of `text`: how tokens and client secrets are stored.
    public static func sha256(_ text: String) -> String {
        hex(SHA256.hash(data: Array(text.utf8)))
    }

    /// Compares two strings in time that depends only on their lengths.
    public static func constantTimeEqual(_ lhs: String, _ rhs: String) -> Bool {
        let left = Array(lhs.utf8)
        let right = Array(rhs.utf8)
        guard left.count == right.count else { return false }
        var difference: UInt8 = 0
        for index in left.indices { difference |= left[index] ^ right[index] }
        return difference == 0
    }

    /// `count` random bytes as lower-case hex.
    public static func randomHex(bytes count: Int) -> String {
        hex(randomBytes(count))
    }

    /// A user ID in Kii's shape: a lower-case UUID.
    public static func userID() -> String { UUID().uuidString.lowercased() }

    /// A group ID: 25 lower-case letters and digits.
    public static func groupID() -> String { randomAlphanumeric(25) }

    /// A thing ID in Kii's shape: `th.` and 32 hex digits in UUID groups.
    public static func thingID() -> String { "th." + UUID().uuidString.lowercased() }

    static func randomAlphanumeric(_ count: Int) -> String {
        var symbols: [UInt8] = []
        symbols.reserveCapacity(count)
        while symbols.count < count {
            // 252 = 7 × 36: a byte at or above it is dropped, so that every symbol is as likely.
            for byte in randomBytes(count - symbols.count + 8) where byte < 252 && symbols.count < count {
                symbols.append(alphanumerics[Int(byte % 36)])
            }
        }
        return String(decoding: symbols, as: UTF8.self)
    }

    private static let alphanumerics = Array("0123456789abcdefghijklmnopqrstuvwxyz".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// From the system's secure generator, all at once (`arc4random_buf`: glibc's and the BSDs'
    /// cryptographic generator, seeded by the kernel); eight bytes per call of
    /// `SystemRandomNumberGenerator` made a command's ID four system calls.
    static func randomBytes(_ count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if let base = buffer.baseAddress { arc4random_buf(base, count) }
            initialized = count
        }
    }

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

}
