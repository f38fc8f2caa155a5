import Foundation
import ProcessSupport

/// A self-signed certificate for 127.0.0.1 and localhost, made by the `openssl` command for a
/// test's TLS listeners.
public struct TestCertificate: Sendable {
    public let certificate: String
    public let privateKey: String

    /// Waits for `openssl` without holding a task thread (Foundation's `waitUntilExit` did, for
    /// 25 s on a loaded machine, starving every other suite).
    public init(in directory: String) async throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificate = directory + "/cert.pem"
        privateKey = directory + "/key.pem"
        let process = try ChildProcess.spawn(
            executable: "/usr/bin/openssl",
            arguments: [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                privateKey,
                "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ], logPath: directory + "/openssl.log")
        guard await process.exit(within: .seconds(60)) == 0 else {
            throw TestFailure("openssl could not make a test certificate")
        }
    }
}
