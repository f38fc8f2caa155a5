import ProcessSupport
import Testing

/// The embedded broker's generated configuration: its listeners as `--mqtt-host` and the TLS
/// files make them, and the template's policy kept as written.
@Suite("Embedded broker configuration")
struct EmbeddedBrokerConfigFileTests {
    static let template = """
        listener 1883 127.0.0.1
        plugin x.so
        plugin_opt_secret_file s
        allow_anonymous false
        """

    func render(host: String = "127.0.0.1", tls: EmbeddedBrokerConfigFile.TLSListener? = nil) -> [String] {
        EmbeddedBrokerConfigFile.render(
            template: Self.template, port: 11883, pluginPath: "/p.so", secretFile: "/s", directory: "/d",
            runAsUser: nil,
            host: host, tls: tls, tlsPort: 18883
        ).split(separator: "\n").map(String.init)
    }

    @Test("By default one plain listener on loopback, and no TLS listener")
    func loopbackOnly() {
        let lines = render()
        #expect(lines.filter { $0.hasPrefix("listener ") } == ["listener 11883 127.0.0.1"])
        #expect(!lines.contains { $0.hasPrefix("certfile") })
        #expect(lines.contains("allow_anonymous false"))
    }

    @Test("With TLS files: a second listener on the same address, its files right after it")
    func tlsListener() {
        let lines = render(
            host: "0.0.0.0",
            tls: EmbeddedBrokerConfigFile.TLSListener(certfile: "/c.pem", keyfile: "/k.pem", cafile: "/ca.pem"))
        let first = lines.firstIndex(of: "listener 11883 0.0.0.0")
        let second = lines.firstIndex(of: "listener 18883 0.0.0.0")
        #expect(first != nil && second != nil && first! < second!)
        if let second {
            #expect(
                Array(lines[(second + 1)...(second + 4)]) == [
                    "certfile /c.pem", "keyfile /k.pem", "cafile /ca.pem", "tls_version tlsv1.2",
                ])
        }
    }
}
