import ArgumentParser

/// Options of every `emulate phone` subcommand.
struct PhoneOptions: ParsableArguments {
    @OptionGroup var target: EmulatorOptions
    @Option(help: "The file that keeps this phone's user token and installation.")
    var profile = ".topicgate-phone.json"
    @Option(help: "Display name of the pseudo user created on first use.")
    var name = "emulated phone"
}
