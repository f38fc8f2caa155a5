import Foundation

/// `openssl s_client` as a TLS client that verifies the server against a test certificate:
/// sends bytes and returns what came back.
enum TLSClient {
    /// Sends `request` over TLS to 127.0.0.1:`port` (SNI localhost). Returns the server's bytes
    /// once it closes the connection.
    static func exchange(_ request: String, port: Int, certificate: TestCertificate) throws -> String {
        try exchange(Array(request.utf8), port: port, certificate: certificate)
    }

    static func exchange(_ request: [UInt8], port: Int, certificate: TestCertificate) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = [
            "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-CAfile", certificate.certificate,
            "-verify_return_error", "-quiet",
        ]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        input.fileHandleForWriting.write(Data(request))
        let data = output.fileHandleForReading.readDataToEndOfFile()
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
