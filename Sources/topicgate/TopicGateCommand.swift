import ArgumentParser
import TopicGateCore

/// `topicgate`: the server and the operator's tools.
@main
struct TopicGateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "topicgate",
        abstract: "A self-hosted push-and-ACL backend that speaks the Kii Cloud wire protocol.",
        version: TopicGateVersion.current,
        subcommands: [
            ServeCommand.self, AppsCommand.self, BackupCommand.self, RestoreCommand.self, ACLCommand.self,
            TopicsCommand.self, PrincipalsCommand.self,
            UsersCommand.self,
            EmulateCommand.self,
            BenchCommand.self,
            OpenAPICommand.self, BenchBoundCommand.self, BenchHoldCommand.self,
        ],
        defaultSubcommand: ServeCommand.self)
}
