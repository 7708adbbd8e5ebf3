import StrokeWorker
import Testing

@testable import stroke_bench

@Suite("stroke-bench's own options")
struct BenchArgumentsTests {
    @Test("counts of runs, messages and a capacity that would trap or mean nothing are refused before any section")
    func counts() async throws {
        // Before, --runs 0 or -1 and --capacity 0 or -1 trapped (status 132), --messages 0 or -10 was taken.
        for (arguments, expected) in [
            (["--runs", "0"], "--runs: a number of runs, 1 to 100, got 0"),
            (["--runs", "-1"], "--runs: a number of runs, 1 to 100, got -1"),
            (["--messages", "0"], "--messages: a number of messages, 1 to 1000000000, got 0"),
            (["--messages", "-10"], "--messages: a number of messages, 1 to 1000000000, got -10"),
            (["--capacity", "0"], "--capacity: messages per second, 2 to 1000000000, got 0.0"),
            (["--capacity", "-1"], "--capacity: messages per second, 2 to 1000000000, got -1.0"),
            (["--capacity", "nan"], "--capacity: messages per second, 2 to 1000000000, got nan"),
        ] {
            let args = try CommandLineArguments(
                ["--only", "latency"] + arguments, flagNames: BenchCommand.flagNames)
            let error = await #expect(throws: BenchError.self) { _ = try await BenchCommand.run(args) }
            #expect(error?.description == expected, "\(arguments)")
        }
    }

    @Test("an argument that is no option is refused, and a raw peer's command line without what it needs")
    func strayArguments() async throws {
        // Before, `stroke-bench nothing` ran the whole benchmark, and `stroke-bench raw-sink` crashed.
        for arguments in [
            ["nothing"], ["--quick", "extra"], ["raw-sink"], ["raw-sink", "--count", "5"],
            ["raw-sink", "--endpoint", "tcp://127.0.0.1:*", "--count", "0"], ["raw-echo", "--input", "x"],
            ["raw-echo", "--input", "tcp://127.0.0.1:*", "--output", "tcp://127.0.0.1:*", "extra"],
        ] {
            #expect(await BenchCommand.main(arguments) == 2, "\(arguments)")
        }
    }

    @Test("a bad command line exits 2, as stroke-worker's and stroke-tool's do; an unknown option is named as one")
    func usageStatus() async throws {
        // Before, each exited 1, and an unknown option last on the line was said to need a value.
        #expect(await BenchCommand.main(["--bogus"]) == 2)
        #expect(await BenchCommand.main(["--only", "latency", "--runs", "0"]) == 2)
        #expect(await BenchCommand.main(["--only", "nothing"]) == 2)
        #expect(await BenchCommand.main(["--runs", "x"]) == 2)
        let error = #expect(throws: CommandLineArguments.Failure.self) {
            try CommandLineArguments(
                ["--only", "recognizer", "--bogus"], flagNames: BenchCommand.flagNames, known: BenchCommand.optionNames)
        }
        #expect(error?.description == "unknown option --bogus")
    }

    @Test("the recognizer section's sizes and counts are read before any section runs")
    func recognizerChoices() async throws {
        // Before, a bad one ended a full run in the recognizer section, after throughput, latency and memory.
        for (option, value, expected) in [
            ("templates", "16,x", "--templates: not a size: x"), ("templates", "0", "--templates: not a size: 0"),
            ("learned", "1,-2", "--learned: not a count: -2"), ("among", "four", "--among: not a count: four"),
        ] {
            let args = try CommandLineArguments(
                ["--only", "memory", "--worker", "/nonexistent/stroke-worker", "--\(option)", value],
                flagNames: BenchCommand.flagNames)
            let error = await #expect(throws: BenchError.self) { _ = try await BenchCommand.run(args) }
            #expect(error?.description == expected && error?.isUsage == true)
        }
        let choices = try BenchCommand.RecognizerChoices(
            CommandLineArguments(["--templates", "builtin,48", "--learned", "0"], flagNames: []))
        #expect(choices.builtIn && choices.sizes == [48] && choices.learned.isEmpty && choices.among == [1, 4, 8])
    }

    @Test("a worker binary that is not there is named before any section that starts it")
    func missingWorker() async throws {
        // Before (session 78), the first section to start it failed with Foundation's "The file doesn’t exist.".
        let args = try CommandLineArguments(
            ["--only", "memory", "--worker", "/nonexistent/stroke-worker"], flagNames: BenchCommand.flagNames)
        let error = await #expect(throws: BenchError.self) { _ = try await BenchCommand.run(args) }
        #expect(error?.description == "--worker /nonexistent/stroke-worker: no executable file there")
    }

    @Test("an option that tunes only sections --only leaves out is refused, naming the sections that read it")
    func unreadOptions() async throws {
        for (arguments, expected) in [
            (
                ["--only", "recognizer", "--capacity", "100000"],
                "--capacity tunes the latency section, which --only leaves out (--only recognizer)"
            ),
            (
                ["--only", "latency,memory", "--cases", "binary-1"],
                "--cases tunes the processor, throughput sections, which --only leaves out (--only latency,memory)"
            ),
            (
                ["--only", "processor", "--templates", "48"],
                "--templates tunes the recognizer section, which --only leaves out (--only processor)"
            ),
            (["--only", "recognizer", "--curve"], "--curve tunes the throughput section, which --only leaves out"),
        ] {
            let args = try CommandLineArguments(arguments, flagNames: BenchCommand.flagNames)
            let error = await #expect(throws: BenchError.self) { _ = try await BenchCommand.run(args) }
            #expect(
                error?.isUsage == true && error?.description.hasPrefix(expected) == true, "\(String(describing: error))"
            )
        }
        // Read by one of the sections run: taken.
        #expect(BenchCommand.unreadOption(given: ["cases", "sessions", "tilt"], sections: ["processor"]) == nil)
        #expect(BenchCommand.unreadOption(given: ["worker", "runs", "json"], sections: ["cluster"]) == nil)
        // Every option but those of every run is said to tune a section.
        let everyRun: Set = ["quick", "json", "help", "runs", "dataset", "only"]
        #expect(Set(BenchCommand.sectionsReading.keys) == BenchCommand.optionNames.subtracting(everyRun))
    }
}
