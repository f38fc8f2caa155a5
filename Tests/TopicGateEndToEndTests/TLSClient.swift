import Foundation
import Glibc
import ProcessSupport
import TestSupport

/// `openssl s_client` as a TLS client that verifies the server against a test certificate:
/// sends bytes and returns what came back.
enum TLSClient {
    /// Sends `request` over TLS to 127.0.0.1:`port` (SNI localhost). Returns the server's bytes
    /// once it closes the connection.
    static func exchange(_ request: String, port: Int, certificate: TestCertificate) async throws -> String {
        try await exchange(Array(request.utf8), port: port, certificate: certificate)
    }

    /// Runs on a thread of its own: the client waits for the server to close, which can take
    /// seconds, and a blocked task thread would starve every other suite on a 2-core machine.
    static func exchange(_ request: [UInt8], port: Int, certificate: TestCertificate) async throws -> String {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<String, any Error>) in
            DispatchQueue.global().async {
                done.resume(with: Result { try exchangeBlocking(request, port: port, certificate: certificate) })
            }
        }
    }

    private static func exchangeBlocking(_ request: [UInt8], port: Int, certificate: TestCertificate) throws
        -> String
    {
        let input = Pipe()
        let output = Pipe()
        let process = try ChildProcess.spawn(
            executable: "/usr/bin/openssl",
            arguments: [
                "s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost", "-CAfile",
                certificate.certificate, "-verify_return_error", "-quiet",
            ],
            input: input.fileHandleForReading.fileDescriptor, output: output.fileHandleForWriting.fileDescriptor)
        // The child has its own copies of these ends.
        try input.fileHandleForReading.close()
        try output.fileHandleForWriting.close()
        try writeAll(request, to: input.fileHandleForWriting.fileDescriptor)
        let data = output.fileHandleForReading.readDataToEndOfFile()
        try? input.fileHandleForWriting.close()
        _ = process.waitBlocking()
        return String(decoding: data, as: UTF8.self)
    }

    /// Writes all of `bytes` to `descriptor`, again where a signal interrupted the call: with
    /// the suite spawning processes all around, `FileHandle.write` once trapped on `EINTR`. A
    /// client that already exited (it could not connect: the server is not listening yet) reads
    /// nothing more: what it printed is the answer, and the caller tries again.
    private static func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EPIPE { return }
                guard errno == EINTR else { throw TestFailure("writing to openssl failed (errno \(errno))") }
                continue
            }
            offset += written
        }
    }
}
