import Foundation
import ProcessSupport
import TestSupport
import Testing
import TopicGateServer

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

    @Test("With persistence on, the plugin is told the persistence file it asks the broker to write; off, it is not")
    func persistenceFile() {
        func rendered(_ template: String) -> [String] {
            EmbeddedBrokerConfigFile.render(
                template: template, port: 1, pluginPath: "/p.so", secretFile: "/s", directory: "/d/state",
                runAsUser: nil
            ).split(separator: "\n").map(String.init)
        }
        #expect(rendered("persistence true").contains("plugin_opt_persistence_file /d/state/mosquitto.db"))
        let named = rendered("persistence true\npersistence_file pushes.db\nplugin_opt_persistence_file x")
        #expect(
            named.filter { $0.hasPrefix("plugin_opt_persistence_file") } == [
                "plugin_opt_persistence_file /d/state/pushes.db"
            ])
        #expect(
            !rendered("persistence false\nplugin_opt_persistence_file x").contains { $0.contains("persistence_file") })
        #expect(!rendered("# persistence true").contains { $0.hasPrefix("plugin_opt_persistence_file") })
    }

    @Test("An away device's session lives as long as the push life, 4 days unless --push-life says otherwise")
    func pushLife() throws {
        let template = try String(contentsOfFile: BrokerProcess.templatePath, encoding: .utf8)
        let lines = EmbeddedBrokerConfigFile.render(
            template: template, port: 1, pluginPath: "/p.so", secretFile: "/s", directory: "/d", runAsUser: nil,
            persistentClientExpiration: "30h"
        ).split(separator: "\n").map(String.init)
        #expect(lines.filter { $0.hasPrefix("persistent_client_expiration") } == ["persistent_client_expiration 30h"])
        #expect(template.contains("\npersistent_client_expiration \(PushLife.default.brokerSetting)\n"))
        #expect(PushLife(parsing: "4d") == PushLife.default && PushLife(parsing: "96h")?.hours == 96)
        for wrong in ["", "4", "0d", "-1h", "30m", "366d", "4 d", "9999999999999999999d"] {
            #expect(PushLife(parsing: wrong) == nil, "\(wrong)")
        }
    }
}
