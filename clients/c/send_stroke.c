/*
 * send_stroke: a stroke-worker client in plain C against libzmq, written from Protocol/README.md alone.
 *
 * Pings the session until the worker answers (so that its events will reach us), sends one check-shaped stroke in
 * the binary form (begin, points in batches, end), then prints every event for that session until the match (or
 * no match) arrives. A message on the output that is not [topic, event] is passed over, and said on stderr.
 *
 *   cc -O2 -Wall -Wextra -o send_stroke send_stroke.c -lzmq
 *   ./send_stroke [input-endpoint] [output-endpoint] [session-id]
 *
 * To a worker started with --curve-secret-key (section 1, "Security"), set STROKE_CURVE_SERVER_KEY to its public
 * key (40 Z85 characters) and, if the worker lists its clients, STROKE_CURVE_SECRET_KEY to this client's secret
 * key; without one, a fresh key pair is made. A worker that lists its clients refuses an unlisted key at the
 * handshake, and libzmq does not try again: a socket monitor reports it, and the client says so and exits.
 *
 * Exit status: 0 when a match event arrives, 1 on no match or timeout, 2 on a ZeroMQ error or an argument the
 * protocol or libzmq would refuse or misread (a session id outside section 2's rules, such as bytes that are not
 * UTF-8; a TCP port that is not a number in 1-65535), 3 when the worker refused this client's CURVE key.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#define CHECK(expr)                                                                        \
    do {                                                                                   \
        if ((expr) < 0) {                                                                  \
            fprintf(stderr, "%s failed: %s\n", #expr, zmq_strerror(zmq_errno()));          \
            exit(2);                                                                       \
        }                                                                                  \
    } while (0)

/* FNV-1a, 32-bit (Protocol/README.md, section 2). */
static uint32_t fnv1a32(const char *data, size_t length) {
    uint32_t hash = 0x811C9DC5u;
    for (size_t i = 0; i < length; i++) {
        hash ^= (uint8_t)data[i];
        hash *= 0x01000193u;
    }
    return hash;
}

static void put_u16(uint8_t *p, uint16_t v) { p[0] = v & 0xFF; p[1] = v >> 8; }
static void put_u32(uint8_t *p, uint32_t v) { for (int i = 0; i < 4; i++) p[i] = (v >> (8 * i)) & 0xFF; }
static void put_f32(uint8_t *p, float f) { uint32_t v; memcpy(&v, &f, 4); put_u32(p, v); }
static void put_f64(uint8_t *p, double d) {
    uint64_t v;
    memcpy(&v, &d, 8);
    for (int i = 0; i < 8; i++) p[i] = (v >> (8 * i)) & 0xFF;
}

/* The length of the well-formed UTF-8 sequence at `s` (at most `left` bytes), 0 if there is none: no overlong form,
   no surrogate (U+D800-U+DFFF), nothing past U+10FFFF. */
static size_t utf8_sequence(const uint8_t *s, size_t left) {
    if (s[0] < 0x80) return 1;
    size_t length = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (length == 0 || s[0] > 0xF4 || length > left) return 0;
    for (size_t i = 1; i < length; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] > 0x9F) || (s[0] == 0xF0 && s[1] < 0x90)
        || (s[0] == 0xF4 && s[1] > 0x8F))
        return 0;
    return length;
}

/* Section 2: a session id is 1-128 bytes of UTF-8 with no control characters, and does not start with '$'. Before
   session 87 bytes that are not UTF-8 went out: the worker refused the topic, and the client waited 10 s for a
   pong that could not come and blamed the output endpoint. */
static int valid_session(const char *session) {
    size_t length = strlen(session);
    if (length < 1 || length > 128 || session[0] == '$') return 0;
    for (size_t i = 0; i < length;) {
        uint8_t byte = (uint8_t)session[i];
        if (byte < 0x20 || byte == 0x7F) return 0;
        size_t sequence = utf8_sequence((const uint8_t *)session + i, length - i);
        if (sequence == 0) return 0;
        i += sequence;
    }
    return 1;
}

/* libzmq 4.3 reads a TCP port with strtoul, keeps its low 16 bits and ignores what follows the digits: ":99999"
   would dial port 34463 and ":5555x" port 5555. A client connects, so the port is a number in 1-65535. */
static int valid_endpoint(const char *endpoint) {
    if (strstr(endpoint, "://") == NULL) return 0;
    if (strncmp(endpoint, "tcp://", 6) != 0) return 1;
    const char *colon = strrchr(endpoint, ':');
    if (colon == NULL || colon < endpoint + 6 || colon[1] == '\0') return 0;
    unsigned long port = 0;
    for (const char *p = colon + 1; *p; p++) {
        if (*p < '0' || *p > '9' || (port = port * 10 + (unsigned long)(*p - '0')) > 65535) return 0;
    }
    return port >= 1;
}

/* CURVE (section 1, "Security"): a monitor of `socket` that reports refused handshakes only
   (ZMQ_EVENT_HANDSHAKE_FAILED_AUTH, whose value is the ZAP status code, 400 for a refused key). */
static void *watch_handshakes(void *context, void *socket, const char *name) {
    char endpoint[64];
    snprintf(endpoint, sizeof endpoint, "inproc://handshakes-%s", name);
    CHECK(zmq_socket_monitor(socket, endpoint, ZMQ_EVENT_HANDSHAKE_FAILED_AUTH));
    void *monitor = zmq_socket(context, ZMQ_PAIR);
    CHECK(zmq_connect(monitor, endpoint));
    return monitor;
}

/* Waits up to `milliseconds` for a message on `socket`: 1 when one is queued, 0 on timeout. Exits with status 3
   when `monitor` (NULL: none) reports that the worker refused the key. */
static int wait_readable(void *socket, void *monitor, int milliseconds) {
    zmq_pollitem_t items[2] = {{socket, 0, ZMQ_POLLIN, 0}, {monitor, 0, ZMQ_POLLIN, 0}};
    CHECK(zmq_poll(items, monitor ? 2 : 1, milliseconds));
    if (items[0].revents & ZMQ_POLLIN) return 1;
    if (monitor && (items[1].revents & ZMQ_POLLIN)) {
        uint8_t event[6];
        uint32_t status = 0;
        if (zmq_recv(monitor, event, sizeof event, 0) >= 6) memcpy(&status, event + 2, 4);
        fprintf(stderr, "the worker refused this client's CURVE key (status %u): list its public key in the "
                        "worker's --curve-authorized-keys file, or set STROKE_CURVE_SECRET_KEY to a listed one\n",
                status);
        exit(3);
    }
    return 0;
}

/* Receives one message of `socket`, which has one queued, into `topic` and `payload` (NUL-terminated, cut to
   their sizes): 1 for an event, [topic, payload], with `*topic_length` the topic's whole length; 0 for a message
   of any other number of frames, which is taken whole and passed over. Such a message is no event of the protocol
   (section 1: exactly two frames), a garbled one or another publisher's; before session 86 the client read its
   frames as if it were one and from then on took payloads for topics and topics for payloads. */
static int receive_event(void *socket, char *topic, size_t topic_size, int *topic_length, char *payload,
                         size_t payload_size) {
    int more = 0, frames = 1, m = 0;
    size_t more_size = sizeof more;
    int n = zmq_recv(socket, topic, topic_size - 1, 0);
    CHECK(n);
    topic[(size_t)n < topic_size - 1 ? (size_t)n : topic_size - 1] = 0;
    *topic_length = n;
    CHECK(zmq_getsockopt(socket, ZMQ_RCVMORE, &more, &more_size));
    while (more) {
        /* The second frame is the payload; any after it are taken with nothing kept. */
        int length = zmq_recv(socket, payload, frames == 1 ? payload_size - 1 : 0, 0);
        CHECK(length);
        if (frames++ == 1) m = length;
        CHECK(zmq_getsockopt(socket, ZMQ_RCVMORE, &more, &more_size));
    }
    payload[(size_t)m < payload_size - 1 ? (size_t)m : payload_size - 1] = 0;
    if (frames != 2)
        fprintf(stderr, "send_stroke: skipped a message of %d frame%s, not [topic, event]\n", frames,
                frames == 1 ? "" : "s");
    return frames == 2;
}

/* One binary message (section 3): 16-byte header, then x, y (f32) and t (f64) per point. */
static size_t encode(uint8_t *out, uint8_t type, uint32_t seq, uint32_t stroke, const float (*points)[3],
                     uint16_t count) {
    out[0] = 0xB1;
    out[1] = 1;
    out[2] = type;
    out[3] = 0;
    put_u32(out + 4, seq);
    put_u32(out + 8, stroke);
    put_u16(out + 12, 0);
    put_u16(out + 14, count);
    for (uint16_t i = 0; i < count; i++) {
        put_f32(out + 16 + 16 * i, points[i][0]);
        put_f32(out + 20 + 16 * i, points[i][1]);
        put_f64(out + 24 + 16 * i, points[i][2]);
    }
    return 16 + 16 * (size_t)count;
}

/* Section 1: events are subscribed to by prefix, so the subscription to a session also brings the events of every
   session whose id starts with it ("player-1" brings "player-10"'s): an event is the session's only when its topic
   is the session id itself. */
static int is_session_topic(const char *topic, int length, const char *session, size_t session_length) {
    return length == (int)session_length && memcmp(topic, session, session_length) == 0;
}

static const char usage[] =
    "usage: send_stroke [input-endpoint] [output-endpoint] [session-id]\n"
    "  defaults: tcp://127.0.0.1:5555 tcp://127.0.0.1:5556 c-client; STROKE_CURVE_SERVER_KEY (and\n"
    "  STROKE_CURVE_SECRET_KEY) for a worker with a CURVE key. Exit status: 0 match, 1 no match or timeout,\n"
    "  2 an error or a bad argument, 3 the worker refused this client's key.\n";

int main(int argc, char **argv) {
    /* Before session 81, --help was taken for an endpoint and a fourth argument was passed over. */
    if (argc > 1 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
        fputs(usage, stdout);
        return 0;
    }
    if (argc > 4) {
        fprintf(stderr, "send_stroke: at most three arguments, got %d\n%s", argc - 1, usage);
        return 2;
    }
    const char *input = argc > 1 ? argv[1] : "tcp://127.0.0.1:5555";
    const char *output = argc > 2 ? argv[2] : "tcp://127.0.0.1:5556";
    const char *session = argc > 3 ? argv[3] : "c-client";
    if (!valid_endpoint(input) || !valid_endpoint(output)) {
        fprintf(stderr, "send_stroke: an endpoint is TRANSPORT://ADDRESS, a TCP port a number in 1-65535: %s %s\n",
                input, output);
        return 2;
    }
    if (!valid_session(session)) {
        fprintf(stderr,
                "send_stroke: a session id is 1-128 bytes of UTF-8 without control characters, not starting with "
                "'$'\n");
        return 2;
    }
    size_t session_length = strlen(session);

    char topic[160];
    int topic_length = snprintf(topic, sizeof topic, "%03x/%s", fnv1a32(session, session_length) % 4096, session);

    /* A check in screen coordinates (y down): a short leg down-right, a long leg up-right, 10 ms apart. */
    float points[48][3];
    int count = 0;
    for (int i = 0; i < 12; i++, count++) {
        points[count][0] = 20.0f + 3.0f * i;
        points[count][1] = 100.0f + 4.0f * i;
        points[count][2] = 10.0f * count;
    }
    for (int i = 0; i < 36; i++, count++) {
        points[count][0] = 56.0f + 4.0f * i;
        points[count][1] = 148.0f - 5.5f * i;
        points[count][2] = 10.0f * count;
    }

    void *context = zmq_ctx_new();
    void *producer = zmq_socket(context, ZMQ_XPUB);
    void *consumer = zmq_socket(context, ZMQ_SUB);
    int timeout = 10000, zero = 0;
    CHECK(zmq_setsockopt(producer, ZMQ_RCVTIMEO, &timeout, sizeof timeout));
    CHECK(zmq_setsockopt(consumer, ZMQ_RCVTIMEO, &timeout, sizeof timeout));
    CHECK(zmq_setsockopt(producer, ZMQ_LINGER, &timeout, sizeof timeout));
    /* Section 8: (un)subscriptions arrive as messages, up to 4,096 per worker; take them in whole, so that the
       XPUB reads them all at once rather than a thousand at a time while the rest wait in the connection. */
    int subscriptions = 100000;
    CHECK(zmq_setsockopt(producer, ZMQ_RCVHWM, &subscriptions, sizeof subscriptions));
    CHECK(zmq_setsockopt(consumer, ZMQ_LINGER, &zero, sizeof zero));
    /* Section 1, "Security": CURVE, when the worker has a key; both sockets are clients of its public key. */
    void *producer_monitor = NULL, *consumer_monitor = NULL;
    const char *server_key = getenv("STROKE_CURVE_SERVER_KEY");
    if (server_key && *server_key) {
        char public_key[41], secret_key[41];
        const char *given = getenv("STROKE_CURVE_SECRET_KEY");
        if (given && *given) {
            snprintf(secret_key, sizeof secret_key, "%s", given);
            CHECK(zmq_curve_public(public_key, secret_key));
        } else {
            CHECK(zmq_curve_keypair(public_key, secret_key));
        }
        void *sockets[2] = {producer, consumer};
        for (int i = 0; i < 2; i++) {
            CHECK(zmq_setsockopt(sockets[i], ZMQ_CURVE_SERVERKEY, server_key, 40));
            CHECK(zmq_setsockopt(sockets[i], ZMQ_CURVE_PUBLICKEY, public_key, 40));
            CHECK(zmq_setsockopt(sockets[i], ZMQ_CURVE_SECRETKEY, secret_key, 40));
        }
        producer_monitor = watch_handshakes(context, producer, "producer");
        consumer_monitor = watch_handshakes(context, consumer, "consumer");
    }
    CHECK(zmq_setsockopt(consumer, ZMQ_SUBSCRIBE, session, session_length));
    /* Section 1: an IPv6 address (tcp://[::1]:5556) needs libzmq's IPv6 option, which is off by default. */
    int ipv6 = 1;
    if (strncmp(output, "tcp://[", 7) == 0) CHECK(zmq_setsockopt(consumer, ZMQ_IPV6, &ipv6, sizeof ipv6));
    if (strncmp(input, "tcp://[", 7) == 0) CHECK(zmq_setsockopt(producer, ZMQ_IPV6, &ipv6, sizeof ipv6));
    CHECK(zmq_connect(consumer, output));
    CHECK(zmq_connect(producer, input));

    /* Section 8: wait for the worker's subscription before sending, so nothing is lost. A worker with several
       lanes, or a cluster, subscribes bucket by bucket: wait for the one that covers our topic (or for "",
       everything). A subscription message is 0x01 followed by the prefix. */
    char subscription[256];
    for (;;) {
        if (!wait_readable(producer, producer_monitor, timeout)) {
            fprintf(stderr, "no subscription from the worker within %d ms: is one running with its input at %s?\n",
                    timeout, input);
            exit(1);
        }
        int n = zmq_recv(producer, subscription, sizeof subscription, 0);
        CHECK(n);
        if (n > (int)sizeof subscription) continue; /* truncated: longer than any shard prefix */
        if (n >= 1 && subscription[0] == 1 && n - 1 <= topic_length
            && memcmp(subscription + 1, topic, (size_t)(n - 1)) == 0) break;
    }
    /* Section 4, ping: our own subscription must reach the worker too. Ping the session until its pong comes back
       (outside the session's numbering; it creates no state). Later pongs of the pings sent meanwhile are printed
       with the events below. */
    static const char ping[] = "{\"type\":\"ping\"}";
    int answered = 0;
    for (int attempt = 0; attempt < 100 && !answered; attempt++) {
        CHECK(zmq_send(producer, topic, (size_t)topic_length, ZMQ_SNDMORE));
        CHECK(zmq_send(producer, ping, sizeof ping - 1, 0));
        while (!answered && wait_readable(consumer, consumer_monitor, 100)) {
            char event_topic[160], payload[512];
            int n;
            if (receive_event(consumer, event_topic, sizeof event_topic, &n, payload, sizeof payload)
                && is_session_topic(event_topic, n, session, session_length) && strstr(payload, "\"event\":\"pong\"")) {
                printf("%s %s\n", event_topic, payload);
                answered = 1;
            }
        }
    }
    if (!answered) {
        fprintf(stderr, "the worker did not answer a ping within 10 s: is %s its output endpoint?\n", output);
        exit(1);
    }

    uint8_t buffer[16 + 16 * 48];
    uint32_t seq = 1;
    size_t size = encode(buffer, 1, seq++, 1, points, 1);
    CHECK(zmq_send(producer, topic, (size_t)topic_length, ZMQ_SNDMORE));
    CHECK(zmq_send(producer, buffer, size, 0));
    for (int start = 1; start < count; start += 8) {
        uint16_t batch = (uint16_t)(count - start < 8 ? count - start : 8);
        size = encode(buffer, 2, seq++, 1, points + start, batch);
        CHECK(zmq_send(producer, topic, (size_t)topic_length, ZMQ_SNDMORE));
        CHECK(zmq_send(producer, buffer, size, 0));
    }
    size = encode(buffer, 3, seq++, 1, NULL, 0);
    CHECK(zmq_send(producer, topic, (size_t)topic_length, ZMQ_SNDMORE));
    CHECK(zmq_send(producer, buffer, size, 0));
    printf("sent stroke 1 of session %s as %u binary messages\n", session, seq - 1);

    int status = 1;
    for (;;) {
        char event_topic[160], payload[4096];
        int n;
        if (!wait_readable(consumer, consumer_monitor, timeout)) {
            fprintf(stderr, "no event within %d ms\n", timeout);
            break;
        }
        if (!receive_event(consumer, event_topic, sizeof event_topic, &n, payload, sizeof payload)) continue;
        if (!is_session_topic(event_topic, n, session, session_length)) continue; /* another session's */
        printf("%s %s\n", event_topic, payload);
        if (strstr(payload, "\"event\":\"match\"")) { status = 0; break; }
        if (strstr(payload, "\"event\":\"nomatch\"")) break;
    }
    if (producer_monitor) zmq_close(producer_monitor);
    if (consumer_monitor) zmq_close(consumer_monitor);
    zmq_close(producer);
    zmq_close(consumer);
    zmq_ctx_term(context);
    return status;
}
