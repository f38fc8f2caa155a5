import Foundation

/// Finds the `mosquitto` executable: on `PATH`, then where Debian and Homebrew install it.
public enum MosquittoExecutable {
    public static func find(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let candidates = path + ["/usr/sbin", "/usr/local/sbin", "/opt/homebrew/sbin", "/usr/local/opt/mosquitto/sbin"]
        return candidates.map { $0 + "/mosquitto" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
