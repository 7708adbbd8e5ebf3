extension WorkerMetrics {
    /// A counter or gauge of the exposition: its name, help and type, and how it is read.
    private struct Family {
        let name: String
        let help: String
        let type: String
        let key: String
        /// What the counter's value is divided by: 1, or 1,000,000 for microseconds shown as seconds.
        var divisor = 1
    }

    private static let families: [Family] = [
        Family(
            name: "stroke_worker_messages_received_total", help: "Input messages received, well-formed or not.",
            type: "counter", key: "messagesReceived"),
        Family(
            name: "stroke_worker_points_received_total", help: "Touch points received in well-formed messages.",
            type: "counter", key: "pointsReceived"),
        Family(
            name: "stroke_worker_events_published_total", help: "Events published.", type: "counter",
            key: "eventsPublished"),
        Family(
            name: "stroke_worker_events_dropped_total",
            help: "Events dropped for every consumer because one did not keep up within the send timeout "
                + "(--slow-consumers wait).", type: "counter",
            key: "eventsDropped"),
        Family(
            name: "stroke_worker_strokes_recognized_total", help: "Strokes matched against a library.",
            type: "counter", key: "strokesRecognized"),
        Family(
            name: "stroke_worker_strokes_matched_total", help: "Strokes answered with a match.", type: "counter",
            key: "strokesMatched"),
        Family(
            name: "stroke_worker_strokes_unmatched_total",
            help: "Strokes answered with a nomatch, whatever the reason.",
            type: "counter", key: "strokesUnmatched"),
        Family(
            name: "stroke_worker_strokes_not_chosen_total",
            help: "Strokes answered with a nomatch because a gesture outside their session's choice matched.",
            type: "counter", key: "strokesNotChosen"),
        Family(
            name: "stroke_worker_strokes_too_small_total",
            help: "Strokes answered with a nomatch because they were smaller than their session's minimum size.",
            type: "counter", key: "strokesTooSmall"),
        Family(
            name: "stroke_worker_strokes_offloaded_total",
            help: "Finished strokes recognized by a lane's helper thread.", type: "counter", key: "strokesOffloaded"),
        Family(
            name: "stroke_worker_checkmarks_total", help: "Checkmarks detected.", type: "counter", key: "checkmarks"),
        Family(
            name: "stroke_worker_times_in_seconds_total",
            help: "Check-shaped strokes held back because their times advanced under 1 ms: seconds, not milliseconds?",
            type: "counter", key: "timesInSeconds"),
        Family(
            name: "stroke_worker_strokes_turned_total",
            help: "Strokes whose checkmark detector judged them turned back by their session's tilt.",
            type: "counter", key: "strokesTurned"),
        Family(
            name: "stroke_worker_strokes_matched_turned_total",
            help: "Strokes and gestures the library matched turned back by their session's tilt.", type: "counter",
            key: "strokesMatchedTurned"),
        Family(
            name: "stroke_worker_templates_learned_total",
            help: "Strokes that sessions learned as templates of their own.", type: "counter",
            key: "templatesLearned"),
        Family(
            name: "stroke_worker_learned_templates", help: "Learned templates held, over all sessions.",
            type: "gauge", key: "learnedTemplates"),
        Family(
            name: "stroke_worker_gestures_grouped_total",
            help: "Gestures matched in sessions that group strokes (multistroke).", type: "counter",
            key: "gesturesGrouped"),
        Family(
            name: "stroke_worker_gestures_waiting", help: "Gestures waiting for their next stroke.", type: "gauge",
            key: "gesturesWaiting"),
        Family(
            name: "stroke_worker_input_gaps_total", help: "Input messages lost, by the producers' sequence numbers.",
            type: "counter", key: "inputGaps"),
        Family(
            name: "stroke_worker_handshakes_refused_total",
            help: "CURVE handshakes refused (key not authorized, or no CURVE).", type: "counter",
            key: "handshakesRefused"),
        Family(
            name: "stroke_worker_connections_cut_total",
            help: "Connections cut because their CURVE key was revoked after they were made.", type: "counter",
            key: "connectionsCut"),
        Family(
            name: "stroke_worker_messages_revoked_total",
            help: "Input messages dropped because their connection's CURVE key was revoked.", type: "counter",
            key: "messagesRevoked"),
        Family(
            name: "stroke_worker_pings_total", help: "Ping messages answered with a pong.", type: "counter",
            key: "pings"),
        Family(name: "stroke_worker_sessions", help: "Sessions held.", type: "gauge", key: "sessions"),
        Family(
            name: "stroke_worker_sessions_restored_total",
            help: "Sessions restored from the state file (--state-file) at the start.", type: "counter",
            key: "sessionsRestored"),
        Family(
            name: "stroke_worker_lane_busy_seconds_total",
            help: "Seconds the lanes spent handling input rather than waiting for it, summed over lanes: its rate "
                + "divided by stroke_worker_lanes is how busy they are (1: saturated).",
            type: "counter", key: "laneBusyMicroseconds", divisor: 1_000_000),
        Family(
            name: "stroke_worker_helper_waits_total",
            help: "Times a lane's queue filled up with strokes its recognition helper had not recognized yet, so "
                + "that the lane stopped reading input until the helper caught up.",
            type: "counter", key: "helperWaits"),
        Family(
            name: "stroke_worker_helper_wait_seconds_total",
            help: "Seconds the lanes spent waiting for their recognition helpers with a full queue, summed over lanes "
                + "(part of stroke_worker_lane_busy_seconds_total): recognition, not the lanes, bounds the worker.",
            type: "counter", key: "helperWaitMicroseconds", divisor: 1_000_000),
        Family(name: "stroke_worker_lanes", help: "Lanes (--lanes).", type: "gauge", key: "lanes"),
        Family(
            name: "stroke_worker_checkpoints_total",
            help: "Checkpoints of the sessions written to the state file (--checkpoint-interval).", type: "counter",
            key: "checkpointsWritten"),
        Family(
            name: "stroke_worker_log_lines_lost_total",
            help: "Log lines dropped because standard error's reader had gone or made no room within "
                + "\(LogOutput.patienceMilliseconds) ms "
                + "(the process's, not only this worker's).", type: "counter", key: "logLinesLost"),
        Family(
            name: "stroke_worker_input_connections",
            help: "Connections open on the input endpoints: producers or proxies, or the worker's own to proxies.",
            type: "gauge", key: "inputConnections"),
        Family(
            name: "stroke_worker_output_connections",
            help: "Connections open on the output endpoints: consumers or proxies, or the worker's own to proxies.",
            type: "gauge", key: "outputConnections"),
        Family(
            name: "stroke_worker_connect_retries_total",
            help: "Failed attempts to connect to an endpoint the worker connects to (connect:).", type: "counter",
            key: "connectRetries"),
        Family(
            name: "stroke_worker_disconnections_total",
            help: "Connections of the input and output endpoints that ended.", type: "counter",
            key: "disconnections"),
        Family(
            name: "stroke_worker_handshakes_failed_total",
            help: "Handshakes that failed on the input and output endpoints (not ZMTP, a socket of the wrong type, a "
                + "CURVE key that does not fit, a refused key).", type: "counter", key: "handshakesFailed"),
        Family(
            name: "stroke_worker_accept_failures_total",
            help: "Connections the bound endpoints could not take (accept failed: out of files, most often).",
            type: "counter", key: "acceptFailures"),
        Family(
            name: "stroke_worker_unfinished_messages_cut_total",
            help: "Producers' connections cut for sending more than a limit without finishing a message.",
            type: "counter", key: "unfinishedMessagesCut"),
        Family(
            name: "stroke_worker_subscribers_cut_total",
            help: "Consumers' connections cut for holding subscriptions past --max-subscription-bytes.",
            type: "counter", key: "subscribersCut"),
        Family(
            name: "process_open_fds",
            help: "Files the process has open: each producer's and consumer's connection takes one.", type: "gauge",
            key: "openFiles"),
        Family(
            name: "process_max_fds",
            help: "The process's limit on open files (soft RLIMIT_NOFILE, raised to the hard limit at the start).",
            type: "gauge", key: "openFilesLimit"),
    ]

    /// The counters in Prometheus's text exposition format (0.0.4), each sample with `labels`; error events as
    /// `stroke_worker_errors_total{code="…"}`.
    func prometheusText(labels: [(String, String)]) -> String {
        let snapshot = self.snapshot
        let common = labels.map { "\($0.0)=\"\(Self.escaped($0.1))\"" }
        func sample(_ name: String, _ extra: [String], _ value: Int, divisor: Int = 1) -> String {
            let all = common + extra
            let shown = divisor == 1 ? "\(value)" : "\(Double(value) / Double(divisor))"
            return all.isEmpty ? "\(name) \(shown)\n" : "\(name){\(all.joined(separator: ","))} \(shown)\n"
        }
        var text = ""
        for family in Self.families {
            text += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            text += sample(family.name, [], snapshot[family.key] ?? 0, divisor: family.divisor)
        }
        text += "# HELP stroke_worker_errors_total Error events published, by code.\n"
        text += "# TYPE stroke_worker_errors_total counter\n"
        for (code, count) in errorCounts.sorted(by: { $0.key < $1.key }) {
            text += sample("stroke_worker_errors_total", ["code=\"\(Self.escaped(code))\""], count)
        }
        return text
    }

    /// A label value with `\`, `"` and line feeds escaped.
    static func escaped(_ value: String) -> String {
        var result = ""
        for character in value {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }
}
