/* See batch_reader.h. Little-endian, unaligned: every value is copied out with memcpy. */
#include "batch_reader.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

BatchReader batch_reader(const HepBatch *batch) {
    BatchReader r = {batch->data, batch->data + batch->len, 0};
    return r;
}

int batch_reader_more(const BatchReader *r) { return !r->failed && r->at < r->end; }

static const uint8_t *take(BatchReader *r, size_t n) {
    if (r->failed || (size_t)(r->end - r->at) < n) {
        r->failed = 1;
        return NULL;
    }
    const uint8_t *p = r->at;
    r->at += n;
    return p;
}

static uint8_t u8(BatchReader *r) {
    const uint8_t *p = take(r, 1);
    return p ? *p : 0;
}

static uint64_t u64(BatchReader *r) {
    const uint8_t *p = take(r, 8);
    uint64_t v = 0;
    for (int i = 7; p && i >= 0; i--) v = (v << 8) | p[i];
    return v;
}

static uint32_t u32(BatchReader *r) {
    const uint8_t *p = take(r, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 : 0;
}

static double f64(BatchReader *r) {
    uint64_t bits = u64(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* The summary being written: appends stop at the capacity. */
typedef struct Out {
    char *at;
    size_t room;
} Out;

static void say(Out *o, const char *format, ...) {
    va_list args;
    va_start(args, format);
    int n = vsnprintf(o->at, o->room, format, args);
    va_end(args);
    if (n < 0) return;
    size_t used = (size_t)n < o->room ? (size_t)n : o->room - 1;
    o->at += used;
    o->room -= used;
}

static void str(BatchReader *r, Out *o, const char *name) {
    uint32_t len = u32(r);
    const uint8_t *p = take(r, len);
    say(o, " %s=\"%.*s\"", name, p ? (int)len : 0, p ? (const char *)p : "");
}

static void num(BatchReader *r, Out *o, const char *name) { say(o, " %s=%llu", name, (unsigned long long)u64(r)); }

static void flag(BatchReader *r, Out *o, const char *name) { say(o, " %s=%s", name, u8(r) ? "true" : "false"); }

static int present(BatchReader *r, Out *o, const char *name) {
    if (u8(r)) return 1;
    say(o, " %s=none", name);
    return 0;
}

int batch_reader_item(BatchReader *r, char *out, size_t cap) {
    Out o = {out, cap};
    out[0] = '\0';
    say(&o, "%llu", (unsigned long long)u64(r));
    uint32_t raw = u32(r);
    take(r, raw);
    uint8_t tag = u8(r);
    switch (tag) {
    case HEP_FRAME_TAG_HEP_HEADER:
        say(&o, " hep_header");
        str(r, &o, "hep"), str(r, &o, "fah"), str(r, &o, "session");
        break;
    case HEP_FRAME_TAG_AGENT_START:
        say(&o, " agent_start");
        num(r, &o, "turn_id");
        break;
    case HEP_FRAME_TAG_MESSAGE_START:
        say(&o, " message_start");
        num(r, &o, "turn_id"), str(r, &o, "role");
        break;
    case HEP_FRAME_TAG_MESSAGE_DELTA:
        say(&o, " message_delta");
        num(r, &o, "turn_id"), str(r, &o, "delta");
        break;
    case HEP_FRAME_TAG_TOOL_START:
        say(&o, " tool_start");
        num(r, &o, "turn_id"), str(r, &o, "id"), str(r, &o, "name"), str(r, &o, "args_summary");
        break;
    case HEP_FRAME_TAG_TOOL_DELTA:
        say(&o, " tool_delta");
        num(r, &o, "turn_id"), str(r, &o, "id"), str(r, &o, "update");
        break;
    case HEP_FRAME_TAG_TOOL_LIVENESS:
        say(&o, " tool_liveness");
        num(r, &o, "turn_id"), str(r, &o, "id"), str(r, &o, "name"), str(r, &o, "action");
        num(r, &o, "elapsed_ms");
        if (present(r, &o, "output_bytes")) num(r, &o, "output_bytes");
        if (present(r, &o, "detail")) str(r, &o, "detail");
        break;
    case HEP_FRAME_TAG_TURN_DONE: {
        say(&o, " turn_done");
        num(r, &o, "turn_id"), str(r, &o, "message");
        uint32_t results = u32(r);
        say(&o, " tool_results=%u", results);
        for (uint32_t i = 0; i < results && !r->failed; i++) {
            str(r, &o, "id"), str(r, &o, "name"), flag(r, &o, "ok"), str(r, &o, "text");
        }
        num(r, &o, "input"), num(r, &o, "output");
        say(&o, " cost=%g", f64(r));
        str(r, &o, "stop_reason");
        break;
    }
    case HEP_FRAME_TAG_TURN_ERROR:
        say(&o, " turn_error");
        num(r, &o, "turn_id"), str(r, &o, "error"), flag(r, &o, "fatal");
        break;
    case HEP_FRAME_TAG_CANCELLED:
        say(&o, " cancelled");
        num(r, &o, "turn_id");
        break;
    case HEP_FRAME_TAG_COMPACTION_START:
        say(&o, " compaction_start");
        num(r, &o, "turn_id");
        break;
    case HEP_FRAME_TAG_COMPACTION_END:
        say(&o, " compaction_end");
        num(r, &o, "turn_id"), num(r, &o, "tokens_freed");
        break;
    case HEP_FRAME_TAG_UNKNOWN:
        say(&o, " unknown");
        str(r, &o, "frame_type");
        if (present(r, &o, "turn_id")) num(r, &o, "turn_id");
        str(r, &o, "raw");
        break;
    default:
        r->failed = 1;
    }
    return r->failed ? -1 : 0;
}
