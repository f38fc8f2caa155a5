import Foundation
import TestSupport

/// A self-signed certificate for 127.0.0.1 and localhost, made by the `openssl` command for a
/// test's TLS listeners.
struct TestCertificate {
    let certificate: String
    let privateKey: String

    init(in directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificate = directory + "/cert.pem"
        privateKey = directory + "/key.pem"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            privateKey,
            "-out", certificate, "-days", "2", "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw TestFailure("openssl could not make a test certificate") }
    }
}
