import Foundation
import MQTTBridge

/// The secret the gateway shares with the broker plugin, kept in a file only the owner reads.
public enum MQTTSecret {
    /// Reads the secret at `path`, creating it (256 random bits as hex, mode 0600) when it does
    /// not exist; refuses a file that group or others may read.
    public static func loadOrCreate(at path: String) throws -> String {
        let manager = FileManager.default
        if !manager.fileExists(atPath: path) {
            let directory = (path as NSString).deletingLastPathComponent
            if !directory.isEmpty { try manager.createDirectory(atPath: directory, withIntermediateDirectories: true) }
            let created = manager.createFile(
                atPath: path, contents: Data((Secrets.randomHex(bytes: 32) + "\n").utf8),
                attributes: [.posixPermissions: 0o600])
            if !created { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path]) }
        }
        guard try DataDirectory.looseBits(path) == 0 else { throw LooseSecretFile(path: path) }
        if geteuid() == 0, let refusal = PrivilegedPath.refusal(path, what: "MQTT secret") {
            throw DataDirectory.Refused(description: refusal)
        }
        // The plugin reads the same file by the same rule (`MQTTSecretText`).
        do {
            return String(
                decoding: try MQTTSecretText.parse(try Data(contentsOf: URL(fileURLWithPath: path))), as: UTF8.self)
        } catch let failure as MQTTSecretText.Failure {
            let size =
                failure == .tooShort
                ? "shorter than \(MQTTSecretText.minimumBytes)" : "longer than \(MQTTSecretText.maximumBytes)"
            throw CocoaError(
                .fileReadCorruptFile,
                userInfo: [
                    NSFilePathErrorKey: path,
                    NSLocalizedDescriptionKey: "The MQTT secret in \(path) is \(size) bytes (blanks around it aside).",
                ])
        }
    }
}

/// The MQTT secret file gives group or others access: the gateway refuses to use it.
public struct LooseSecretFile: Error, CustomStringConvertible {
    public let path: String

    public var description: String {
        "The MQTT secret \(path) is readable or writable by group or others; run `chmod 600 \(path)` and start again."
    }
}
