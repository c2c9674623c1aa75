/* The C test of hep's C ABI (scripts/c-test.sh builds it against libhep.a and runs it under
 * valgrind): streams fed in chunks and read by the batch layout, the verdict, errors with
 * kind/line/column, the writer's exact bytes, NULL and invalid arguments, every free
 * function. Prints each check that fails and exits 1 if any did. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch_reader.h"
#include "hep.h"

static int failures = 0;

#define CHECK(cond)                                                                                    \
    do {                                                                                               \
        if (!(cond)) {                                                                                 \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                 \
            failures++;                                                                                \
        }                                                                                              \
    } while (0)

static HepText text(const char *s) {
    HepText t = {s, strlen(s)};
    return t;
}

/* Whether `s` (a HepString) holds exactly `want`. */
static int same(HepString s, const char *want) { return s.ptr && s.len == strlen(want) && !memcmp(s.ptr, want, s.len); }

/* Checks that `error` has `kind`, `line` and `column`, says `message` (when not NULL),
 * then frees it. */
static void expect_error(HepError *error, HepErrorKind kind, uint64_t line, uint64_t column, const char *message) {
    CHECK(error != NULL);
    if (!error) return;
    if (error->kind != kind || error->line != line || error->column != column) {
        fprintf(stderr, "  got %s line %llu column %llu: %.*s\n", hep_error_kind_name(error->kind),
                (unsigned long long)error->line, (unsigned long long)error->column, (int)error->message.len,
                error->message.ptr);
    }
    CHECK(error->kind == kind);
    CHECK(error->line == line);
    CHECK(error->column == column);
    CHECK(error->message.ptr != NULL && error->message.ptr[error->message.len] == '\0');
    if (message) CHECK(same(error->message, message));
    hep_error_free(error);
}

static const char RUN[] =
    "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.0\",\"session\":\"s\"}\n"
    "{\"type\":\"agent_start\",\"turn_id\":1}\n"
    "{\"type\":\"message_start\",\"turn_id\":1,\"role\":\"assistant\"}\n"
    "{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"h\xC3\xA9llo\"}\n"
    "{\"type\":\"tool_start\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\",\"args_summary\":\"command=make\"}\n"
    "{\"type\":\"tool_delta\",\"turn_id\":1,\"id\":\"c1\",\"update\":\"ok\"}\n"
    "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\",\"action\":\"heartbeat\","
    "\"elapsed_ms\":30000,\"output_bytes\":2048,\"detail\":\"attempt 2\"}\n"
    "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\",\"action\":\"heartbeat\","
    "\"elapsed_ms\":60000}\n"
    "{\"type\":\"compaction_start\",\"turn_id\":1}\n"
    "{\"type\":\"compaction_end\",\"turn_id\":1,\"tokens_freed\":5}\n"
    "{\"type\":\"future_frame\",\"turn_id\":1,\"x\":true}\n"
    "{\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"h\xC3\xA9llo\",\"tool_results\":[{\"id\":\"c1\","
    "\"name\":\"bash\",\"ok\":true,\"text\":\"done\"}],\"usage\":{\"input\":1,\"output\":2,\"cost\":0.5},"
    "\"stop_reason\":\"stop\"}\n"
    "{\"type\":\"turn_error\",\"turn_id\":2,\"error\":\"boom\",\"fatal\":false}\n"
    "{\"type\":\"cancelled\",\"turn_id\":3}\n";

static const char *const RUN_FRAMES[] = {
    "1 hep_header hep=\"v1\" fah=\"1.0\" session=\"s\"",
    "2 agent_start turn_id=1",
    "3 message_start turn_id=1 role=\"assistant\"",
    "4 message_delta turn_id=1 delta=\"h\xC3\xA9llo\"",
    "5 tool_start turn_id=1 id=\"c1\" name=\"bash\" args_summary=\"command=make\"",
    "6 tool_delta turn_id=1 id=\"c1\" update=\"ok\"",
    "7 tool_liveness turn_id=1 id=\"c1\" name=\"bash\" action=\"heartbeat\" elapsed_ms=30000 output_bytes=2048 "
    "detail=\"attempt 2\"",
    "8 tool_liveness turn_id=1 id=\"c1\" name=\"bash\" action=\"heartbeat\" elapsed_ms=60000 output_bytes=none "
    "detail=none",
    "9 compaction_start turn_id=1",
    "10 compaction_end turn_id=1 tokens_freed=5",
    "11 unknown frame_type=\"future_frame\" turn_id=1 raw=\"{\"type\":\"future_frame\",\"turn_id\":1,\"x\":true}\"",
    "12 turn_done turn_id=1 message=\"h\xC3\xA9llo\" tool_results=1 id=\"c1\" name=\"bash\" ok=true text=\"done\" "
    "input=1 output=2 cost=0.5 stop_reason=\"stop\"",
    "13 turn_error turn_id=2 error=\"boom\" fatal=false",
    "14 cancelled turn_id=3",
};

/* Reads every frame of `batch` into `seen` (from index *count on), then frees it. */
static void read_batch(HepBatch batch, char seen[][512], size_t *count) {
    BatchReader r = batch_reader(&batch);
    size_t items = 0;
    while (batch_reader_more(&r) && *count < 32) {
        CHECK(batch_reader_item(&r, seen[*count], sizeof seen[0]) == 0);
        (*count)++, items++;
    }
    CHECK(!r.failed);
    CHECK(items == batch.frames);
    hep_batch_free(batch);
}

/* The run fed in chunks, the first cut inside the UTF-8 `é`; every frame read back. */
static void test_stream_in_chunks(void) {
    HepStream *stream = NULL;
    HepError *error = NULL;
    CHECK(hep_stream_new(NULL, &stream, &error));
    const char *e_acute = strstr(RUN, "\xC3\xA9");
    size_t cut = (size_t)(e_acute - RUN) + 1, len = strlen(RUN);
    char seen[32][512];
    size_t count = 0;
    for (size_t at = 0; at < len;) {
        size_t n = at == 0 ? cut : (len - at < 7 ? len - at : 7);
        HepBatch batch;
        CHECK(hep_stream_feed(stream, (const uint8_t *)RUN + at, n, &batch, &error));
        read_batch(batch, seen, &count);
        at += n;
    }
    size_t want = sizeof RUN_FRAMES / sizeof RUN_FRAMES[0];
    CHECK(count == want);
    for (size_t i = 0; i < count && i < want; i++) {
        if (strcmp(seen[i], RUN_FRAMES[i]) != 0) fprintf(stderr, "  frame %zu: %s\n", i, seen[i]);
        CHECK(strcmp(seen[i], RUN_FRAMES[i]) == 0);
    }
    HepString result;
    CHECK(hep_stream_finish(stream, 130, true, &result, &error));
    CHECK(result.ptr[result.len] == '\0');
    CHECK(strstr(result.ptr, "{\"verdict\":\"cancelled\"") == result.ptr);
    CHECK(strstr(result.ptr, "\"exit_code\":130") != NULL);
    hep_string_free(result);
    hep_stream_free(stream);
}

/* A lenient stream of one clean run: the verdict is ok; a malformed line is skipped, not an
 * error, and shows in the result. */
static void test_verdict_and_skipped_lines(void) {
    static const char clean[] =
        "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.0\",\"session\":\"s\"}\n"
        "{\"type\":\"agent_start\",\"turn_id\":1}\n"
        "{\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"\",\"tool_results\":[],\"usage\":{\"input\":0,"
        "\"output\":0,\"cost\":0.0},\"stop_reason\":\"stop\"}\n";
    HepStreamOptions options = hep_stream_options_default();
    CHECK(!options.strict && options.max_line_bytes == 16u << 20 && options.limits.max_reports == 1000);
    HepStream *stream = NULL;
    CHECK(hep_stream_new(&options, &stream, NULL));
    HepBatch batch;
    CHECK(hep_stream_feed(stream, (const uint8_t *)clean, strlen(clean), &batch, NULL));
    CHECK(batch.frames == 3);
    hep_batch_free(batch);
    HepString result;
    CHECK(hep_stream_finish(stream, 0, true, &result, NULL));
    CHECK(strstr(result.ptr, "{\"verdict\":\"ok\"") == result.ptr);
    HepString again;
    CHECK(hep_stream_finish(stream, 0, true, &again, NULL));
    CHECK(again.len == result.len && !memcmp(again.ptr, result.ptr, result.len));
    hep_string_free(again);
    hep_string_free(result);
    /* The same result in the batch layout: verdict "ok", one reason, exit code 0, conforms. */
    HepBytes binary;
    CHECK(hep_stream_finish_binary(stream, 0, true, &binary, NULL));
    static const uint8_t head[] = {2, 0, 0, 0, 'o', 'k', 1, 0, 0, 0};
    CHECK(binary.len > sizeof head && !memcmp(binary.data, head, sizeof head));
    hep_bytes_free(binary);
    CHECK(!hep_stream_finish_binary(stream, 0, true, NULL, NULL));
    hep_stream_free(stream);

    CHECK(hep_stream_new(NULL, &stream, NULL));
    CHECK(hep_stream_feed(stream, (const uint8_t *)"{oops\n", 6, &batch, NULL));
    CHECK(batch.frames == 0 && batch.data == NULL);
    hep_batch_free(batch);
    CHECK(hep_stream_finish(stream, 0, false, &result, NULL));
    CHECK(strstr(result.ptr, "\"skipped_count\":1") != NULL);
    CHECK(strstr(result.ptr, "\"exit_code\":null") != NULL);
    hep_string_free(result);
    hep_stream_free(stream);
}

/* Strict mode halts at a malformed line: the error has its kind, line and column, and the
 * batch holds the frames before it. */
static void test_halt_error(void) {
    static const char input[] = "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.0\",\"session\":\"s\"}\n"
                                "{\"type\":\"agent_start\",\"turn_id\":1,}\n";
    HepStreamOptions options = hep_stream_options_default();
    options.strict = true;
    HepStream *stream = NULL;
    CHECK(hep_stream_new(&options, &stream, NULL));
    HepBatch batch;
    HepError *error = NULL;
    CHECK(!hep_stream_feed(stream, (const uint8_t *)input, strlen(input), &batch, &error));
    CHECK(batch.frames == 1);
    hep_batch_free(batch);
    expect_error(error, HEP_ERROR_KIND_SYNTAX, 2, 35, NULL);
    CHECK(strcmp(hep_error_kind_name(HEP_ERROR_KIND_SYNTAX), "syntax") == 0);
    CHECK(strcmp(hep_error_kind_name(9999), "unknown") == 0);
    hep_stream_free(stream);
}

/* The writer's lines are the conformance vectors' bytes (conformance/writer/
 * readme-example-single-round.json and liveness-heartbeats.json). */
static void test_writer_bytes(void) {
    HepWriter *writer = NULL;
    HepError *error = NULL;
    CHECK(hep_writer_new(text("1.2.3"), HEP_ARGS_MODE_SUMMARY, &writer, &error));
    HepString line;
    CHECK(hep_writer_header(writer, text("abc"), &line, &error));
    CHECK(same(line, "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.2.3\",\"session\":\"abc\"}"));
    hep_string_free(line);
    CHECK(hep_writer_header(writer, text("abc"), &line, &error));
    CHECK(line.ptr == NULL && line.len == 0);
    hep_string_free(line);
    CHECK(hep_writer_agent_start(writer, &line, &error));
    CHECK(same(line, "{\"type\":\"agent_start\",\"turn_id\":1}"));
    hep_string_free(line);
    CHECK(hep_writer_message_delta(writer, text("hi"), &line, &error));
    CHECK(same(line, "{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"hi\"}"));
    hep_string_free(line);
    CHECK(hep_writer_tool_start(writer, text("c1"), text("bash"), text("{\"command\":\"make\"}"), &line, &error));
    CHECK(same(line, "{\"type\":\"tool_start\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\","
                     "\"args_summary\":\"command=\\\"make\\\"\"}"));
    hep_string_free(line);
    uint64_t bytes = 2048;
    HepText detail = text("attempt 2");
    CHECK(hep_writer_tool_liveness(writer, text("c1"), text("bash"), text("heartbeat"), 30000, &bytes, &detail, &line,
                                   &error));
    CHECK(same(line, "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\",\"action\":"
                     "\"heartbeat\",\"elapsed_ms\":30000,\"output_bytes\":2048,\"detail\":\"attempt 2\"}"));
    hep_string_free(line);
    CHECK(hep_writer_tool_liveness(writer, text("c1"), text("bash"), text("heartbeat"), 60000, NULL, NULL, &line,
                                   &error));
    CHECK(same(line, "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"bash\",\"action\":"
                     "\"heartbeat\",\"elapsed_ms\":60000}"));
    hep_string_free(line);
    CHECK(hep_writer_tool_delta(writer, text("c1"), text(""), &line, &error));
    CHECK(line.ptr == NULL);
    HepUsage usage = {1, 2, 0.5};
    CHECK(hep_writer_turn_done(writer, text("hi"), NULL, 0, usage, text("stop"), &line, &error));
    CHECK(same(line, "{\"type\":\"turn_done\",\"turn_id\":1,\"message\":\"hi\",\"tool_results\":[],\"usage\":"
                     "{\"input\":1,\"output\":2,\"cost\":0.5},\"stop_reason\":\"stop\"}"));
    hep_string_free(line);
    CHECK(hep_writer_turn_id(writer) == 1);
    CHECK(hep_writer_turn_start(writer, &line, &error));
    CHECK(line.ptr == NULL && hep_writer_turn_id(writer) == 2);
    CHECK(hep_writer_message_start(writer, text("assistant"), &line, &error));
    CHECK(same(line, "{\"type\":\"message_start\",\"turn_id\":2,\"role\":\"assistant\"}"));
    hep_string_free(line);
    CHECK(hep_writer_compaction_start(writer, &line, &error));
    CHECK(same(line, "{\"type\":\"compaction_start\",\"turn_id\":2}"));
    hep_string_free(line);
    CHECK(hep_writer_compaction_end(writer, 7, &line, &error));
    CHECK(same(line, "{\"type\":\"compaction_end\",\"turn_id\":2,\"tokens_freed\":7}"));
    hep_string_free(line);
    HepToolResult result = {text("c1"), text("bash"), true, text("done")};
    CHECK(hep_writer_turn_done(writer, text(""), &result, 1, usage, text("stop"), &line, &error));
    CHECK(same(line, "{\"type\":\"turn_done\",\"turn_id\":2,\"message\":\"\",\"tool_results\":[{\"id\":\"c1\","
                     "\"name\":\"bash\",\"ok\":true,\"text\":\"done\"}],\"usage\":{\"input\":1,\"output\":2,"
                     "\"cost\":0.5},\"stop_reason\":\"stop\"}"));
    hep_string_free(line);
    CHECK(hep_writer_turn_error(writer, text("boom"), true, &line, &error));
    CHECK(same(line, "{\"type\":\"turn_error\",\"turn_id\":3,\"error\":\"boom\",\"fatal\":true}"));
    hep_string_free(line);
    CHECK(hep_writer_cancelled(writer, &line, &error));
    CHECK(same(line, "{\"type\":\"cancelled\",\"turn_id\":4}"));
    hep_string_free(line);
    CHECK(error == NULL);
    hep_writer_free(writer);
}

/* NULL and invalid arguments are errors (never a crash), each naming the argument. */
static void test_bad_arguments(void) {
    HepError *error = NULL;
    HepBatch batch;
    HepString line;
    CHECK(!hep_stream_feed(NULL, (const uint8_t *)"x", 1, &batch, &error));
    hep_batch_free(batch);
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "stream is NULL");
    HepStream *stream = NULL;
    CHECK(hep_stream_new(NULL, &stream, NULL));
    CHECK(!hep_stream_feed(stream, NULL, 3, &batch, &error));
    hep_batch_free(batch);
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "data is NULL with length 3");
    CHECK(hep_stream_feed(stream, NULL, 0, &batch, &error));
    hep_batch_free(batch);
    CHECK(!hep_stream_feed(stream, (const uint8_t *)"x", 1, NULL, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "batch_out is NULL");
    CHECK(!hep_stream_finish(stream, 0, false, NULL, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "result_out is NULL");
    CHECK(!hep_stream_new(NULL, NULL, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "stream_out is NULL");
    CHECK(!hep_stream_feed(NULL, NULL, 0, &batch, NULL)); /* no place for the error: none made */
    hep_batch_free(batch);
    hep_stream_free(stream);
    hep_stream_free(NULL);

    HepWriter *writer = NULL;
    CHECK(!hep_writer_new(text("1.0"), 7, &writer, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "args_mode 7 is no HepArgsMode");
    HepText null_text = {NULL, 2};
    CHECK(!hep_writer_new(null_text, HEP_ARGS_MODE_FULL, &writer, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "fah is NULL with length 2");
    CHECK(hep_writer_new(text("1.0"), HEP_ARGS_MODE_FULL, &writer, &error));
    HepText bad_utf8 = {"a\xC3", 2};
    CHECK(!hep_writer_message_delta(writer, bad_utf8, &line, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "delta is not UTF-8 (at byte 1)");
    CHECK(!hep_writer_cancelled(NULL, &line, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "writer is NULL");
    CHECK(!hep_writer_cancelled(writer, NULL, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "line_out is NULL");
    CHECK(!hep_writer_tool_start(writer, text("c"), text("n"), text("[1]"), &line, &error));
    CHECK(error && error->kind != HEP_ERROR_KIND_INVALID_ARGUMENT && error->kind != HEP_ERROR_KIND_INTERNAL);
    hep_error_free(error), error = NULL;
    CHECK(!hep_writer_tool_liveness(writer, text("c"), text("n"), text("wait"), 1, NULL, NULL, &line, &error));
    expect_error(error, HEP_ERROR_KIND_UNENCODABLE, 0, 0, "`wait` is no HEP v1 liveness action");
    HepUsage infinite = {0, 0, 1.0 / 0.0};
    CHECK(!hep_writer_turn_done(writer, text(""), NULL, 1, infinite, text("s"), &line, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "results is NULL with length 1");
    CHECK(!hep_writer_turn_done(writer, text(""), NULL, 0, infinite, text("s"), &line, &error));
    expect_error(error, HEP_ERROR_KIND_UNENCODABLE, 0, 0, NULL);
    CHECK(hep_writer_turn_id(NULL) == 0);
    hep_writer_free(writer);
    hep_writer_free(NULL);
    hep_error_free(NULL);
    HepString none = {NULL, 0};
    hep_string_free(none);
    HepBatch empty = {NULL, 0, 0};
    hep_batch_free(empty);
}

/* A frame's JSON text gives its canonical line (fields in the wire order, unknown fields
 * dropped); a refused value gives its kind without line or column. */
static void test_encode_json(void) {
    HepString line = {NULL, 0};
    HepError *error = NULL;
    CHECK(hep_encode_json(text("{\"update\":\"a\\nb\",\"extra\":[1],\"id\":\"c1\",\"type\":\"tool_delta\",\"turn_id\":7}"),
                          &line, &error));
    CHECK(error == NULL);
    CHECK(same(line, "{\"type\":\"tool_delta\",\"turn_id\":7,\"id\":\"c1\",\"update\":\"a\\nb\"}"));
    CHECK(line.ptr[line.len] == '\0');
    hep_string_free(line);

    CHECK(!hep_encode_json(text("{\"type\":\"agent_start\",\"turn_id\":9007199254740992}"), &line, &error));
    expect_error(error, HEP_ERROR_KIND_UNENCODABLE, 0, 0, "9007199254740992 is above the largest integer field value 9007199254740991");
    error = NULL;
    CHECK(!hep_encode_json(text("{\"type\":\"agent_start\"}"), &line, &error));
    expect_error(error, HEP_ERROR_KIND_MISSING_FIELD, 0, 0, NULL);
    error = NULL;
    CHECK(!hep_encode_json(text("{\"type\":\"agent_start\",\"turn_id\":1}"), NULL, &error));
    expect_error(error, HEP_ERROR_KIND_INVALID_ARGUMENT, 0, 0, "line_out is NULL");
}

int main(void) {
    test_stream_in_chunks();
    test_verdict_and_skipped_lines();
    test_halt_error();
    test_writer_bytes();
    test_bad_arguments();
    test_encode_json();
    if (failures) {
        fprintf(stderr, "test_abi: %d checks failed\n", failures);
        return 1;
    }
    printf("test_abi: all checks passed\n");
    return 0;
}
