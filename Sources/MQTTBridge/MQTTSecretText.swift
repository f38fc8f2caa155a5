/// The shared secret file's one rule, the same in the broker plugin (`tg_secret_parse`): the
/// file's contents without leading and trailing blanks (space, tab, CR, LF), 32 to 1024 bytes.
/// The gateway and the plugin must sign and check with the very same bytes.
public enum MQTTSecretText {
    public static let minimumBytes = 32
    public static let maximumBytes = 1024

    /// Why a file's contents are not a secret.
    public enum Failure: Error, Equatable {
        case tooShort
        case tooLong
    }

    /// The secret in `contents`.
    public static func parse(_ contents: some Collection<UInt8>) throws(Failure) -> [UInt8] {
        let bytes = Array(contents)
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var start = 0
        var end = bytes.count
        while start < end && isBlank(bytes[start]) { start += 1 }
        while end > start && isBlank(bytes[end - 1]) { end -= 1 }
        guard end - start >= minimumBytes else { throw .tooShort }
        guard end - start <= maximumBytes else { throw .tooLong }
        return Array(bytes[start..<end])
    }
}
