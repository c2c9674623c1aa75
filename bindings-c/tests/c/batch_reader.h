/* A reader of a HepBatch, following the layout of hep-core's batch module (docs/c.md):
 * each item is a u64 line number, the raw line as a str, then a frame (a HepFrameTag byte
 * and its fields as the tag's doc in hep.h lists them). Used by the C test; small enough
 * to copy. */
#ifndef HEP_BATCH_READER_H
#define HEP_BATCH_READER_H

#include <stddef.h>
#include <stdint.h>

#include "hep.h"

/* A cursor over a batch's bytes; `failed` is set when a read would pass the end. */
typedef struct BatchReader {
    const uint8_t *at;
    const uint8_t *end;
    int failed;
} BatchReader;

/* A cursor at the start of `batch`. */
BatchReader batch_reader(const HepBatch *batch);

/* Whether items remain. */
int batch_reader_more(const BatchReader *r);

/* Reads one item and writes a one-line summary of it into `out` (at most `cap` bytes):
 * "<line> <wire type> <field>=<value> ...", strings quoted as read. Returns 0 on success,
 * -1 on a malformed batch or an unknown tag. */
int batch_reader_item(BatchReader *r, char *out, size_t cap);

#endif
