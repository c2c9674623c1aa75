/* docs/c.md's example: a harness's lines written by HepWriter, read back by a HepStream in
 * two chunks, the frames counted from each batch and the verdict printed. */
#include <stdio.h>
#include <string.h>

#include "hep.h"

static HepText text(const char *s) {
    HepText t = {s, strlen(s)};
    return t;
}

/* Prints `error`, frees it, and returns 1 (the exit status). */
static int fail(HepError *error) {
    fprintf(stderr, "hep: %s at line %llu, column %llu: %.*s\n", hep_error_kind_name(error->kind),
            (unsigned long long)error->line, (unsigned long long)error->column, (int)error->message.len,
            error->message.ptr);
    hep_error_free(error);
    return 1;
}

/* Appends `line` and a newline to `out` (room for 1024 bytes), then frees it. */
static void append(char *out, HepString line) {
    if (line.ptr != NULL && strlen(out) + line.len + 2 <= 1024) {
        strncat(out, line.ptr, line.len);
        strcat(out, "\n");
    }
    hep_string_free(line);
}

int main(void) {
    HepError *error = NULL;
    HepString line;
    char run[1024] = "";

    HepWriter *writer = NULL;
    if (!hep_writer_new(text("1.0.0"), HEP_ARGS_MODE_SUMMARY, &writer, &error)) return fail(error);
    if (!hep_writer_header(writer, text("session-1"), &line, &error)) return fail(error);
    append(run, line);
    if (!hep_writer_agent_start(writer, &line, &error)) return fail(error);
    append(run, line);
    if (!hep_writer_message_delta(writer, text("Hello"), &line, &error)) return fail(error);
    append(run, line);
    HepUsage usage = {12, 3, 0.001};
    if (!hep_writer_turn_done(writer, text("Hello"), NULL, 0, usage, text("stop"), &line, &error)) return fail(error);
    append(run, line);
    hep_writer_free(writer);

    HepStream *stream = NULL;
    if (!hep_stream_new(NULL, &stream, &error)) return fail(error);
    size_t half = strlen(run) / 2;
    const char *chunks[2] = {run, run + half};
    size_t sizes[2] = {half, strlen(run) - half};
    for (int i = 0; i < 2; i++) {
        HepBatch batch;
        if (!hep_stream_feed(stream, (const uint8_t *)chunks[i], sizes[i], &batch, &error)) {
            hep_batch_free(batch);
            hep_stream_free(stream);
            return fail(error);
        }
        printf("chunk %d: %zu frames in %zu bytes\n", i + 1, batch.frames, batch.len);
        hep_batch_free(batch);
    }
    HepString result;
    if (!hep_stream_finish(stream, 0, true, &result, &error)) return fail(error);
    printf("%.*s\n", 16, result.ptr); /* {"verdict":"ok", */
    hep_string_free(result);
    hep_stream_free(stream);
    return 0;
}
