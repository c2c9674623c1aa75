/* The C test of hep's supervision ABI (scripts/c-test.sh runs it under valgrind): the steps
 * of conformance/supervise/cancel-ladder-to-sigkill.json driven on a made-up clock as the
 * conformance runners drive them, its expected actions, frames and result checked; stderr
 * lines, notices among the frames, and bad arguments. Exits 1 if a check fails. */
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

/* An action as the vectors write it: "<at> <kind> [<signal> <reason> next=<signal>/<ms>]". */
static char actions[16][96];
static size_t action_count = 0;
static char frames[16][512];
static size_t frame_count = 0;

static void collect(HepSupervisor *sup, uint64_t at) {
    HepAction action;
    for (;;) {
        CHECK(hep_supervisor_poll_action(sup, &action, NULL));
        if (action.kind == HEP_ACTION_KIND_NONE || action_count == 16) break;
        char *out = actions[action_count++];
        if (action.kind == HEP_ACTION_KIND_SIGNAL) {
            snprintf(out, sizeof actions[0], "%llu signal %d reason=%d next=%d/%llu", (unsigned long long)at,
                     action.signal, action.reason, action.has_next ? action.next_signal : 0,
                     (unsigned long long)action.next_after_ms);
        } else {
            snprintf(out, sizeof actions[0], "%llu kind=%d", (unsigned long long)at, action.kind);
        }
    }
    HepEvents events;
    CHECK(hep_supervisor_poll_events(sup, 64, 1 << 20, &events, NULL));
    BatchReader r = batch_reader(&events.frames);
    while (batch_reader_more(&r) && frame_count < 16) CHECK(batch_reader_item(&r, frames[frame_count++], 512) == 0);
    CHECK(!r.failed);
    hep_events_free(events);
}

/* Ticks at every deadline up to `at` (the runners' loop), then sets the clock to `at`. */
static void advance(HepSupervisor *sup, uint64_t at) {
    int64_t due;
    uint64_t clock = 0;
    while (hep_supervisor_deadline(sup, &due, NULL) && due >= 0 && (uint64_t)due <= at) {
        clock = (uint64_t)due > clock ? (uint64_t)due : clock;
        CHECK(hep_supervisor_tick(sup, clock, NULL));
        collect(sup, clock);
    }
}

static void test_cancel_ladder_vector(void) {
    static const char out[] =
        "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1.2.3\",\"session\":\"s-1\"}\n"
        "{\"type\":\"agent_start\",\"turn_id\":1}\n"
        "{\"type\":\"message_start\",\"turn_id\":1,\"role\":\"assistant\"}\n"
        "{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"working\"}\n";
    HepSuperviseOptions options = hep_supervise_options_default();
    CHECK(options.interrupt_grace_ms == 12000 && options.terminate_grace_ms == 2000 && !options.has_timeout);
    HepSupervisor *sup = NULL;
    CHECK(hep_supervisor_new(&options, 0, &sup, NULL));
    advance(sup, 0);
    CHECK(hep_supervisor_stdout(sup, 0, (const uint8_t *)out, strlen(out), NULL));
    collect(sup, 0);
    advance(sup, 100);
    CHECK(hep_supervisor_cancel(sup, 100, HEP_CANCEL_REASON_USER, NULL, NULL));
    collect(sup, 100);
    advance(sup, 14120);
    CHECK(hep_supervisor_exited(sup, 14120, HEP_EXIT_KIND_SIGNAL, 9, NULL));
    collect(sup, 14120);
    advance(sup, 14130);
    HepString result;
    CHECK(hep_supervisor_result(sup, &result, NULL));
    CHECK(result.ptr == NULL);
    CHECK(hep_supervisor_stdout_closed(sup, 14130, NULL));
    CHECK(hep_supervisor_stderr_closed(sup, 14130, NULL));
    collect(sup, 14130);

    static const char *const want_actions[] = {
        "100 signal 2 reason=0 next=15/12000",
        "12100 signal 15 reason=0 next=9/2000",
        "14100 signal 9 reason=0 next=0/0",
        "14120 kind=2",
    };
    CHECK(action_count == 4);
    for (size_t i = 0; i < action_count && i < 4; i++) {
        if (strcmp(actions[i], want_actions[i]) != 0) fprintf(stderr, "  action %zu: %s\n", i, actions[i]);
        CHECK(strcmp(actions[i], want_actions[i]) == 0);
    }
    CHECK(frame_count == 4);
    CHECK(strcmp(frames[3], "4 message_delta turn_id=1 delta=\"working\"") == 0);

    CHECK(hep_supervisor_result(sup, &result, NULL));
    CHECK(result.ptr != NULL);
    if (result.ptr) {
        CHECK(strstr(result.ptr, "{\"verdict\":\"incomplete\",\"reasons\":[\"the supervisor cancelled the run: "
                                 "cancelled on request\",\"error unterminated_turn: the stream ended inside turn 1, "
                                 "before its terminal frame\",\"exit code 137: killed by signal 9\"],"
                                 "\"exit_code\":137,") == result.ptr);
        CHECK(strstr(result.ptr, "\"cancelled_by\":\"user\",\"signals\":[{\"at_ms\":100,\"signal\":\"SIGINT\"},"
                                 "{\"at_ms\":12100,\"signal\":\"SIGTERM\"},{\"at_ms\":14100,\"signal\":\"SIGKILL\"}]") !=
              NULL);
        CHECK(strstr(result.ptr, "\"duration_ms\":14130") != NULL);
    }
    hep_string_free(result);
    hep_supervisor_free(sup);
}

/* Stderr lines come one by one; a malformed stdout line is a notice after the frames
 * before it; a cancel with a shorter grace; the consumer detached. */
static void test_stderr_and_notices(void) {
    static const char out[] = "{\"type\":\"hep_header\",\"hep\":\"v1\",\"fah\":\"1\",\"session\":\"s\"}\n{oops\n";
    HepSupervisor *sup = NULL;
    CHECK(hep_supervisor_new(NULL, 0, &sup, NULL));
    CHECK(hep_supervisor_set_consumer(sup, 1, false, NULL));
    CHECK(hep_supervisor_set_consumer(sup, 1, true, NULL));
    CHECK(hep_supervisor_stderr(sup, 1, (const uint8_t *)"warn: a\nwarn: b", 15, NULL));
    CHECK(hep_supervisor_stdout(sup, 2, (const uint8_t *)out, strlen(out), NULL));
    HepString line;
    CHECK(hep_supervisor_poll_stderr(sup, &line, NULL));
    CHECK(line.ptr && line.len == 7 && !memcmp(line.ptr, "warn: a", 7));
    hep_string_free(line);
    CHECK(hep_supervisor_poll_stderr(sup, &line, NULL));
    CHECK(line.ptr == NULL); /* "warn: b" has no line end yet */
    HepEvents events;
    CHECK(hep_supervisor_poll_events(sup, 64, 1 << 20, &events, NULL));
    CHECK(events.frames.frames == 1 && events.notices_len == 1);
    if (events.notices_len == 1) {
        HepNotice *notice = &events.notices[0];
        CHECK(notice->after_frames == 1 && notice->kind == HEP_NOTICE_KIND_SKIPPED);
        CHECK(notice->error && notice->error->kind == HEP_ERROR_KIND_SYNTAX && notice->error->line == 2);
        CHECK(notice->violation.code.ptr == NULL);
    }
    hep_events_free(events);
    uint64_t grace = 50;
    CHECK(hep_supervisor_cancel(sup, 10, HEP_CANCEL_REASON_TIMEOUT, &grace, NULL));
    HepAction action;
    CHECK(hep_supervisor_poll_action(sup, &action, NULL));
    CHECK(action.kind == HEP_ACTION_KIND_SIGNAL && action.reason == HEP_CANCEL_REASON_TIMEOUT);
    CHECK(action.next_after_ms == 50);
    int64_t due;
    CHECK(hep_supervisor_deadline(sup, &due, NULL) && due == 60);
    CHECK(hep_supervisor_exited(sup, 20, HEP_EXIT_KIND_CODE, 130, NULL));
    CHECK(hep_supervisor_stderr_closed(sup, 20, NULL));
    CHECK(hep_supervisor_poll_stderr(sup, &line, NULL));
    CHECK(line.ptr && line.len == 7 && !memcmp(line.ptr, "warn: b", 7));
    hep_string_free(line);
    CHECK(hep_supervisor_stdout_closed(sup, 20, NULL));
    CHECK(hep_supervisor_poll_events(sup, 64, 1 << 20, &events, NULL));
    hep_events_free(events);
    HepString result;
    CHECK(hep_supervisor_result(sup, &result, NULL));
    CHECK(result.ptr && strstr(result.ptr, "\"cancelled_by\":\"timeout\"") != NULL);
    hep_string_free(result);
    hep_supervisor_free(sup);
}

static void test_bad_arguments(void) {
    HepError *error = NULL;
    CHECK(!hep_supervisor_tick(NULL, 1, &error));
    CHECK(error && error->kind == HEP_ERROR_KIND_INVALID_ARGUMENT);
    hep_error_free(error), error = NULL;
    HepSupervisor *sup = NULL;
    CHECK(!hep_supervisor_new(NULL, 0, NULL, &error));
    CHECK(error && error->kind == HEP_ERROR_KIND_INVALID_ARGUMENT);
    hep_error_free(error), error = NULL;
    CHECK(hep_supervisor_new(NULL, 0, &sup, NULL));
    CHECK(!hep_supervisor_exited(sup, 1, 7, 0, &error));
    CHECK(error && strcmp(error->message.ptr, "how 7 is no HepExitKind") == 0);
    hep_error_free(error), error = NULL;
    CHECK(!hep_supervisor_cancel(sup, 1, -1, NULL, &error));
    CHECK(error && strcmp(error->message.ptr, "reason -1 is no HepCancelReason") == 0);
    hep_error_free(error), error = NULL;
    CHECK(!hep_supervisor_stdout(sup, 1, NULL, 4, &error));
    CHECK(error && strcmp(error->message.ptr, "data is NULL with length 4") == 0);
    hep_error_free(error), error = NULL;
    CHECK(!hep_supervisor_poll_events(sup, 1, 1, NULL, &error));
    CHECK(error && strcmp(error->message.ptr, "events_out is NULL") == 0);
    hep_error_free(error), error = NULL;
    CHECK(!hep_supervisor_deadline(sup, NULL, &error));
    CHECK(error && strcmp(error->message.ptr, "deadline_ms_out is NULL") == 0);
    hep_error_free(error);
    hep_supervisor_free(sup);
    hep_supervisor_free(NULL);
}

int main(void) {
    test_cancel_ladder_vector();
    test_stderr_and_notices();
    test_bad_arguments();
    if (failures) {
        fprintf(stderr, "test_supervise: %d checks failed\n", failures);
        return 1;
    }
    printf("test_supervise: all checks passed\n");
    return 0;
}
