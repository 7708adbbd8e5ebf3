import Testing

@testable import StrokeWorker

@Suite("Logger: one line a record, values as logfmt writes them")
struct LoggerTests {
    @Test("a value of one printable word stays as it is; any other is quoted, with escapes")
    func textValues() {
        #expect(Logger.textValue("tcp://127.0.0.1:5555") == "tcp://127.0.0.1:5555")
        #expect(Logger.textValue("/var/lib/stroke-worker/state") == "/var/lib/stroke-worker/state")
        #expect(Logger.textValue("") == #""""#)
        #expect(Logger.textValue("no such file") == #""no such file""#)
        #expect(Logger.textValue("a=b") == #""a=b""#)
        #expect(Logger.textValue(#"say "hi" \ there"#) == #""say \"hi\" \\ there""#)
        #expect(Logger.textValue("line\nnext\tend\u{7f}") == #""line\nnext\tend\u007f""#)
    }

    @Test("a text record is one line, whatever its message, label and values hold")
    func textLines() {
        let logger = Logger(format: .text, label: "shard\n0")
        let line = logger.line(
            .warning, "state file not read:\nbad", ["path": "/tmp/my state", "sessions": "3"], time: "T")
        #expect(line == #"T warning [shard\n0] state file not read:\nbad path="/tmp/my state" sessions=3"# + "\n")
        #expect(logger.line(.info, "stopped", [:], time: "T") == "T info [shard\\n0] stopped\n")
    }

    @Test("a JSON record keeps the values as they are, escaped by JSON")
    func jsonLines() {
        let line = Logger(format: .json, label: "w").line(.error, "a\nb", ["path": "x y"], time: "T")
        #expect(line == #"{"label":"w","level":"error","message":"a\nb","path":"x y","time":"T"}"# + "\n")
    }
}
