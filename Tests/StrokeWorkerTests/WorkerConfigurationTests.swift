import Foundation
import StrokeRecognition
import Testing

@testable import StrokeWorker

@Suite("Worker configuration")
struct WorkerConfigurationTests {
    @Test("IPv6: an address in brackets needs it, --ipv6 asks for it on every endpoint")
    func ipv6() throws {
        #expect(WorkerConfiguration.Endpoint(parsing: "tcp://[::1]:5555").usesIPv6)
        #expect(WorkerConfiguration.Endpoint(parsing: "connect:tcp://[fe80::1%eth0]:5555").usesIPv6)
        #expect(!WorkerConfiguration.Endpoint(parsing: "tcp://127.0.0.1:5555").usesIPv6)
        #expect(!WorkerConfiguration.Endpoint(parsing: "ipc:///tmp/[x]").usesIPv6)
        let asked = try WorkerConfiguration(
            arguments: ["--input", "tcp://*:5555", "--output", "connect:tcp://results:5558", "--ipv6", "on"],
            environment: [:])
        #expect(asked.inputs.allSatisfy(\.usesIPv6) && asked.outputs.allSatisfy(\.usesIPv6))
        let byEnvironment = try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_IPV6": "on"])
        #expect(byEnvironment.inputs.allSatisfy(\.usesIPv6) && byEnvironment.outputs.allSatisfy(\.usesIPv6))
        #expect(try !WorkerConfiguration(arguments: [], environment: [:]).inputs.contains(where: \.usesIPv6))
        #expect(throws: CommandLineArguments.Failure.self) {
            try WorkerConfiguration(arguments: ["--ipv6", "maybe"], environment: [:])
        }
    }

    @Test("an endpoint libzmq would misread is refused with the option's name before the worker starts")
    func endpoints() throws {
        for (arguments, environment, named) in [
            (["--input", "tcp://127.0.0.1:99999"], [:], "--input bind:tcp://127.0.0.1:99999"),
            (["--output", "connect:tcp://10.0.0.1:5556x"], [:], "--output connect:tcp://10.0.0.1:5556x"),
            // From its variable, which is named (session 78).
            (
                [], ["STROKE_WORKER_INPUT": "connect:tcp://proxy:0"],
                "--input (from STROKE_WORKER_INPUT) connect:tcp://proxy:0"
            ),
            (["--input", "127.0.0.1:5555"], [:], "--input bind:127.0.0.1:5555"),
            // Only the worker's own threads could reach it (session 78: it started, and listened for nobody).
            (["--input", "inproc://strokes"], [:], "--input bind:inproc://strokes"),
            (["--output", "connect:inproc://lane-0"], [:], "--output connect:inproc://lane-0"),
        ] {
            do {
                _ = try WorkerConfiguration(arguments: arguments, environment: environment)
                Issue.record("\(arguments) \(environment) was taken")
            } catch let failure as CommandLineArguments.Failure {
                #expect(failure.description.hasPrefix(named + ": "), "\(failure)")
            }
        }
        let fine = try WorkerConfiguration(
            arguments: ["--input", "tcp://*:5555", "--output", "connect:tcp://[::1]:5556"], environment: [:])
        #expect(fine.inputs.map(\.description) == ["bind:tcp://*:5555"])
        #expect(fine.outputs.map(\.description) == ["connect:tcp://[::1]:5556"])
    }

    @Test("an option's bad value from its environment variable names the variable; unknown variables are listed")
    func environmentVariables() throws {
        // Session 78: "--lanes: cannot read" for an operator who had set STROKE_WORKER_LANES in a manifest, and
        // a misspelt STROKE_WORKER_LANE left the default without a word.
        for (environment, problem) in [
            (["STROKE_WORKER_LANES": "abc"], #"--lanes (from STROKE_WORKER_LANES): cannot read "abc""#),
            (["STROKE_WORKER_LANES": "99"], "--lanes (from STROKE_WORKER_LANES) 99 is outside 1...64"),
            (
                ["STROKE_WORKER_CHECKMARK": "maybe"],
                #"--checkmark (from STROKE_WORKER_CHECKMARK): on or off, got "maybe""#
            ),
        ] {
            do {
                _ = try WorkerConfiguration(arguments: [], environment: environment)
                Issue.record("\(environment) was taken")
            } catch let failure as CommandLineArguments.Failure {
                #expect(failure.description == problem)
            }
        }
        // On the command line the option is named alone; there it wins over the variable, which is not read.
        do {
            _ = try WorkerConfiguration(arguments: ["--lanes", "99"], environment: ["STROKE_WORKER_LANES": "abc"])
            Issue.record("--lanes 99 was taken")
        } catch let failure as CommandLineArguments.Failure {
            #expect(failure.description == "--lanes 99 is outside 1...64")
        }
        #expect(
            try WorkerConfiguration(arguments: ["--lanes", "2"], environment: ["STROKE_WORKER_LANES": "abc"]).lanes == 2
        )
        let configuration = try WorkerConfiguration(
            arguments: [],
            environment: [
                "STROKE_WORKER_LANE": "2", "STROKE_WORKER_ZZZ": "1", "STROKE_WORKER_LANES": "1",
                "STROKE_KERNELS": "wide",
                "HOME": "/root",
            ])
        #expect(
            configuration.unknownEnvironmentVariables == [
                "STROKE_WORKER_LANE (STROKE_WORKER_LANES?)", "STROKE_WORKER_ZZZ",
            ])
        #expect(try WorkerConfiguration(arguments: [], environment: [:]).unknownEnvironmentVariables.isEmpty)
        #expect(
            CommandLineArguments.editDistance("kitten", "sitting") == 3
                && CommandLineArguments.editDistance("", "ab") == 2)
    }

    @Test("an option given that has no effect in the configuration is named, with why; with its feature on, not")
    func inertOptions() throws {
        let inert = try WorkerConfiguration(
            arguments: ["--checkpoint-interval", "5", "--send-timeout", "50", "--recognition-thread", "on"],
            environment: ["STROKE_WORKER_ADOPT_STATE_MAX_AGE": "60", "STROKE_WORKER_RECOGNITION_OFFLOAD": "always"])
        #expect(
            inert.inertOptions == [
                "--checkpoint-interval has no effect without --state-file",
                "--adopt-state-max-age has no effect without --adopt-state",
                "--send-timeout has no effect without --slow-consumers wait (events to a slow consumer are dropped)",
                "--recognition-offload has no effect with --recognition-thread on, whose publisher thread recognizes "
                    + "every stroke",
            ])
        let effective = try WorkerConfiguration(
            arguments: [
                "--checkpoint-interval", "5", "--state-file", "/tmp/s.json", "--send-timeout", "50", "--slow-consumers",
                "wait", "--adopt-state-max-age", "60", "--adopt-state", "/tmp", "--recognition-offload", "always",
            ], environment: [:])
        #expect(effective.inertOptions.isEmpty)
        #expect(try WorkerConfiguration(arguments: [], environment: [:]).inertOptions.isEmpty)
    }

    @Test("an unknown option is named as one wherever it stands, and a known one last still needs its value")
    func unknownOptions() throws {
        // Before, an unknown option last on the line was said to need a value.
        for arguments in [["--bogus"], ["--lanes", "2", "--bogus"], ["--bogus", "1"], ["--bogus=1", "--lanes", "2"]] {
            let error = #expect(throws: CommandLineArguments.Failure.self) {
                try WorkerConfiguration(arguments: arguments, environment: [:])
            }
            #expect(error?.description == "unknown option --bogus", "\(arguments)")
        }
        let error = #expect(throws: CommandLineArguments.Failure.self) {
            try WorkerConfiguration(arguments: ["--lanes"], environment: [:])
        }
        #expect(error?.description == "--lanes needs a value")
        let help = try CommandLineArguments(["--help"], flagNames: ["help"], known: ["lanes"])
        #expect(help.flag("help"))
    }

    @Test("a flag's environment variable turns it on or off by a word it knows and refuses any other, naming both")
    func flagVariables() throws {
        let variable = "STROKE_PROXY_NO_DROP"
        for (value, expected) in [
            ("1", true), ("true", true), ("YES", true), ("On", true), ("0", false), ("false", false), ("no", false),
            ("OFF", false), ("", false),
        ] {
            let args = try CommandLineArguments([], flagNames: ["no-drop"], environment: [variable: value])
            #expect(try args.flag("no-drop", env: variable) == expected, "\(value)")
        }
        #expect(try CommandLineArguments([], flagNames: ["no-drop"]).flag("no-drop", env: variable) == false)
        // The command line wins over the variable, whatever it says.
        let given = try CommandLineArguments(["--no-drop"], flagNames: ["no-drop"], environment: [variable: "maybe"])
        #expect(try given.flag("no-drop", env: variable))
        // Before session 88, any other value left the flag off without a word.
        for value in ["enabled", "maybe", "2", " on"] {
            let args = try CommandLineArguments([], flagNames: ["no-drop"], environment: [variable: value])
            let error = #expect(throws: CommandLineArguments.Failure.self) { try args.flag("no-drop", env: variable) }
            let named = error.map { args.naming($0) { $0 == "no-drop" ? variable : nil } }
            #expect(
                named?.description
                    == "--no-drop (from STROKE_PROXY_NO_DROP): 1, true, yes or on to set it; 0, false, no or off not "
                    + "to, got \"\(value)\"")
        }
    }

    @Test("library files whose names clash, with each other or the built-in library's, are refused, naming them")
    func libraryNameClash() throws {
        let directory = NSTemporaryDirectory() + "libraries-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var library = try TemplateLibrary.builtIn()
        try library.save(to: directory + "/default.json")
        library.name = "mine"
        try library.save(to: directory + "/a.json")
        try library.save(to: directory + "/b.json")
        for (files, expected) in [
            (["default.json"], #"default.json: its library is named "default", as the built-in one is"#),
            (["a.json", "a.json"], "a.json is given twice"),
            (["a.json", "b.json"], #"a.json and \#(directory)/b.json both hold a library named "mine""#),
        ] {
            #expect {
                try WorkerConfiguration(
                    arguments: files.flatMap { ["--library", directory + "/" + $0] }, environment: [:])
            } throws: { error in
                (error as? RecognitionError)?.message.contains(expected) == true
            }
        }
        #expect(
            try WorkerConfiguration(arguments: ["--library", directory + "/a.json"], environment: [:]).libraries.count
                == 1)
    }

    @Test("configuration from flags and environment, with clear errors")
    func configuration() throws {
        let configuration = try WorkerConfiguration(
            arguments: [
                "--input", "connect:tcp://127.0.0.1:7000", "--shard", "2/3", "--lanes=2", "--log-format", "json",
            ],
            environment: [
                "STROKE_WORKER_OUTPUT": "bind:ipc:///tmp/a,bind:tcp://127.0.0.1:7001",
                "STROKE_WORKER_MAX_SESSIONS": "10",
                "STROKE_WORKER_RECOGNITION_OFFLOAD": "always",
                "STROKE_WORKER_INPUT_HWM": "250",
                "STROKE_WORKER_CHECKMARK": "off",
                "STROKE_WORKER_MAX_SESSION_TEMPLATES": "4",
            ])
        #expect(configuration.inputs == [.init(bind: false, address: "tcp://127.0.0.1:7000")])
        #expect(configuration.outputs.count == 2)
        #expect(configuration.shard == (2, 3))
        #expect(configuration.lanes == 2)
        #expect(configuration.maxSessions == 10)
        #expect(configuration.logFormat == .json)
        #expect(configuration.recognitionOffload == .always)
        #expect(WorkerConfiguration().recognitionOffload == .whenBusy)
        #expect(configuration.inputHighWaterMark == 250)
        #expect(configuration.highWaterMark == 100_000)
        #expect(!configuration.checkmarkByDefault && WorkerConfiguration().checkmarkByDefault)
        #expect(try WorkerConfiguration(arguments: ["--checkmark", "on"], environment: [:]).checkmarkByDefault)
        #expect(WorkerConfiguration().checkmarkFollowsTilt)
        #expect(
            try !WorkerConfiguration(arguments: ["--checkmark-follow-tilt", "off"], environment: [:])
                .checkmarkFollowsTilt)
        #expect(
            try !WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHECKMARK_FOLLOW_TILT": "off"])
                .checkmarkFollowsTilt)
        let flags = try WorkerConfiguration(arguments: ["--input-hwm", "0", "--hwm", "7"], environment: [:])
        #expect(flags.inputHighWaterMark == 0 && flags.highWaterMark == 7)
        // No ZMTP heartbeats by default (one reaching a producer that just closed loses what was not read yet);
        // TCP keepalive instead.
        #expect(WorkerConfiguration().heartbeatMilliseconds == 0 && WorkerConfiguration().tcpKeepaliveSeconds == 10)
        let liveness = try WorkerConfiguration(
            arguments: ["--tcp-keepalive", "30"], environment: ["STROKE_WORKER_HEARTBEAT": "5000"])
        #expect(liveness.tcpKeepaliveSeconds == 30 && liveness.heartbeatMilliseconds == 5000)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_TCP_KEEPALIVE": "0"])
                .tcpKeepaliveSeconds == 0)
        #expect(throws: CommandLineArguments.Failure.self) {
            try WorkerConfiguration(arguments: ["--tcp-keepalive", "-1"], environment: [:])
        }
        // A consumer that falls behind misses events alone by default, and one that takes nothing for 10 s is cut.
        #expect(
            WorkerConfiguration().slowConsumers == .drop && WorkerConfiguration().consumerTimeoutMilliseconds == 10_000)
        let waiting = try WorkerConfiguration(
            arguments: ["--slow-consumers", "wait"], environment: ["STROKE_WORKER_CONSUMER_TIMEOUT": "2500"])
        #expect(waiting.slowConsumers == .wait && waiting.consumerTimeoutMilliseconds == 2500)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_SLOW_CONSUMERS": "wait"])
                .slowConsumers == .wait)
        for bad in [["--slow-consumers", "block"], ["--consumer-timeout", "-1"], ["--consumer-timeout", "3600001"]] {
            #expect(throws: CommandLineArguments.Failure.self) {
                try WorkerConfiguration(arguments: bad, environment: [:])
            }
        }
        #expect(configuration.maxSessionTemplates == 4 && WorkerConfiguration().maxSessionTemplates == 32)
        let learning = try WorkerConfiguration(
            arguments: ["--max-learned-templates", "9", "--max-session-templates", "0"], environment: [:])
        #expect(learning.maxLearnedTemplates == 9 && learning.maxSessionTemplates == 0)
        #expect(WorkerConfiguration().maxLearnedTemplates == 50_000)
        let verdict = try WorkerConfiguration(
            arguments: ["--checkmark-gesture", "tick"], environment: ["STROKE_WORKER_CHECKMARK_MARGIN": "0.1"])
        #expect(verdict.recognizer.checkmarkGesture == "tick" && verdict.recognizer.checkmarkMargin == 0.1)
        #expect(WorkerConfiguration().recognizer.checkmarkGesture == "check")
        #expect(WorkerConfiguration().recognizer.checkmarkMargin == 0.04)
        #expect(WorkerConfiguration().recognizer.choiceMargin == 0.05)
        let margins = try ["0", "0.2", "inf"].map {
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHOICE_MARGIN": $0]).recognizer
        }
        #expect(margins.map(\.choiceMargin) == [0, 0.2, .infinity])
        #expect(
            try WorkerConfiguration(arguments: ["--choice-margin", "0.1"], environment: [:]).recognizer.choiceMargin
                == 0.1)
        #expect(WorkerConfiguration().stateFile == nil)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_STATE_FILE": "/var/lib/s.json"])
                .stateFile == "/var/lib/s.json")
        #expect(try WorkerConfiguration(arguments: ["--state-file", "s.json"], environment: [:]).stateFile == "s.json")
        #expect(WorkerConfiguration().adoptStatePaths.isEmpty && WorkerConfiguration().adoptStateMaxAgeSeconds == 300)
        #expect(WorkerConfiguration().minimumStrokeSize == 0)
        #expect(
            try WorkerConfiguration(arguments: ["--minimum-stroke-size", "12.5"], environment: [:]).minimumStrokeSize
                == 12.5)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_MINIMUM_STROKE_SIZE": "0.02"])
                .minimumStrokeSize == 0.02)
        let adopting = try WorkerConfiguration(
            arguments: [
                "--adopt-state", "/peers/a.json,/peers/b", "--adopt-state", "/c", "--adopt-state-max-age", "60",
            ],
            environment: ["STROKE_WORKER_ADOPT_STATE": "/ignored"])
        #expect(
            adopting.adoptStatePaths == ["/peers/a.json", "/peers/b", "/c"] && adopting.adoptStateMaxAgeSeconds == 60)
        #expect(
            try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_ADOPT_STATE": "/p/0,/p/1"])
                .adoptStatePaths == ["/p/0", "/p/1"])
        let ordinal = try WorkerConfiguration(
            arguments: ["--shard", "ordinal/3"], environment: ["HOSTNAME": "stroke-worker-2"])
        #expect(ordinal.shard == (2, 3))
        for bad in [
            ["--shard", "3/3"], ["--lanes", "0"], ["--bogus", "1"], ["--log-level", "loud"], ["stray"], ["--hwm"],
            ["--recognition-offload", "sometimes"], ["--input-hwm", "-1"], ["--input-hwm", "many"],
            ["--checkmark", "maybe"], ["--checkmark-follow-tilt", "tilted"], ["--recognition-thread", "yes"],
            ["--max-session-templates", "-1"],
            ["--max-learned-templates", "many"], ["--checkmark-margin", "2"], ["--checkmark-margin", "close"],
            ["--checkmark-margin", "nan"], ["--choice-margin", "-0.1"], ["--choice-margin", "nan"],
            ["--choice-margin", "wide"], ["--adopt-state-max-age", "0"], ["--adopt-state-max-age", "soon"],
            ["--minimum-stroke-size", "-1"], ["--minimum-stroke-size", "inf"], ["--minimum-stroke-size", "nan"],
            ["--minimum-stroke-size", "big"],
        ] {
            #expect(throws: CommandLineArguments.Failure.self) {
                try WorkerConfiguration(arguments: bad, environment: [:])
            }
        }
        #expect(throws: (any Error).self) {
            try WorkerConfiguration(arguments: ["--library", "/nonexistent.json"], environment: [:])
        }
        // The detector's tuning from a file; a bad one stops the worker before it starts, with the file named.
        let tuning = NSTemporaryDirectory() + "checkmark-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: tuning) }
        try #"{"fireRatio": 1.3}"#.write(toFile: tuning, atomically: true, encoding: .utf8)
        let tuned = try WorkerConfiguration(arguments: [], environment: ["STROKE_WORKER_CHECKMARK_CONFIG": tuning])
        #expect(tuned.checkmark.fireRatio == 1.3 && tuned.checkmark.capacity == CheckmarkConfiguration.default.capacity)
        try #"{"capacity": 2}"#.write(toFile: tuning, atomically: true, encoding: .utf8)
        #expect {
            try WorkerConfiguration(arguments: ["--checkmark-config", tuning], environment: [:])
        } throws: { error in
            (error as? RecognitionError)?.code == .invalidConfiguration
                && (error as? RecognitionError)?.message.contains(tuning) == true
        }
        // A configuration built in code meets the command line's limits too, checked before a worker starts.
        try WorkerConfiguration().validate()
        for change in [
            { (c: inout WorkerConfiguration) in c.checkmark.minimumLegPoints = 0 }, { $0.maxOpenStrokes = 0 },
            { $0.lanes = 65 }, { $0.inputHighWaterMark = -1 }, { $0.shard = (3, 3) }, { $0.recognizer.pointCount = 2 },
        ] {
            var programmatic = WorkerConfiguration()
            change(&programmatic)
            #expect(throws: RecognitionError.self) { try Worker(configuration: programmatic) }
        }
        for limit in WorkerConfiguration.limits {
            #expect(WorkerConfiguration.options.contains { $0.flag == limit.flag }, "--\(limit.flag) has an option")
        }
        for option in WorkerConfiguration.options {
            #expect(
                WorkerConfiguration.help.contains("--\(option.flag)") && WorkerConfiguration.help.contains(option.env))
            #expect(option.help.contains("Default:"))
        }
    }
}
