import Foundation
import TestSupport
import Testing

/// HTTPS for the API (`--tls-cert`, `--tls-key`), spoken to by `openssl s_client`, a TLS client
/// that checks the certificate against the one the test made.
@Suite("HTTPS for the API")
struct APITLSTests {
    @Test("serve --tls-cert --tls-key answers over TLS with a verified certificate, and not in plain HTTP")
    func https() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-https-\(UUID().uuidString)")
            .path
        let certificate = try await TestCertificate(in: directory + "-cert")
        let server = ServerProcess(
            dataDirectory: directory,
            arguments: ["--broker", "none", "--tls-cert", certificate.certificate, "--tls-key", certificate.privateKey])
        try await server.startWithoutProbe()
        var answer = ""
        for _ in 0..<200 where !answer.contains("HTTP/1.1 200") {
            answer = try await TLSClient.exchange(
                "GET /health HTTP/1.1\r\nHost: localhost\r\nConnection: Close\r\n\r\n", port: server.port,
                certificate: certificate)
            if !answer.contains("HTTP/1.1 200") { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(answer.contains("HTTP/1.1 200"))
        #expect(answer.contains(#"{"status":"ok","#))
        // A plain-HTTP client gets no HTTP answer from the TLS port.
        let plain = try RawConnection(port: server.port, timeout: .seconds(5))
        try plain.send("GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let reply = String(decoding: (try? await plain.receiveUntilClosed()) ?? [], as: UTF8.self)
        #expect(!reply.contains("HTTP/1.1 200"))
        _ = try await server.stop(signal: SIGTERM)
    }

    @Test("serve refuses to start with a missing TLS file or only half of the pair")
    func badFiles() async throws {
        let directory = TestFolder.url.appendingPathComponent("tg-https-\(UUID().uuidString)")
            .path
        let certificate = try await TestCertificate(in: directory + "-cert")
        for arguments in [
            ["--tls-cert", certificate.certificate],
            ["--tls-cert", certificate.certificate, "--tls-key", directory + "/missing.pem"],
            ["--mqtt-tls-cert", certificate.certificate, "--mqtt-tls-key", certificate.certificate],
        ] {
            let (status, _, errors) = try await ServerProcess(dataDirectory: directory).runCLI(
                ["serve", "--data-dir", directory, "--broker", "none", "--port", "\(FreePort.next())"] + arguments,
                credentials: [:])
            #expect(status != 0, "\(arguments)")
            #expect(errors.contains("TLS"), "\(arguments): \(errors)")
        }
    }
}
