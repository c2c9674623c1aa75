package hep

// #include <stdlib.h>
// #include "hep.h"
import "C"

import (
	"io"
	"runtime"
	"unsafe"
)

// Writer writes HEP v1 lines for a harness, byte for byte as the reference does: turn ids,
// the header once, agent_start once, the compaction brackets and the bounds are the core's.
// Each method returns the line it wrote without its "\n", or "" when the protocol says the
// call writes nothing. A Writer is not safe for concurrent use; Close frees it.
type Writer struct {
	w   io.Writer
	h   *C.HepWriter
	buf []byte
}

// A WriterOption changes how a Writer writes.
type WriterOption func(*C.int32_t)

// WithFullArgs makes tool_start.args_summary the arguments' JSON (cut at 4000 UTF-16 units)
// instead of the default `key=value` summary.
func WithFullArgs() WriterOption {
	return func(mode *C.int32_t) { *mode = C.HEP_ARGS_MODE_FULL }
}

// NewWriter makes a writer for a harness of version fahVersion (the header's `fah`),
// writing each line and "\n" to w.
func NewWriter(w io.Writer, fahVersion string, opts ...WriterOption) (*Writer, error) {
	mode := C.int32_t(C.HEP_ARGS_MODE_SUMMARY)
	for _, opt := range opts {
		opt(&mode)
	}
	var h *C.HepWriter
	var cerr *C.HepError
	if !C.hep_writer_new(text(fahVersion), mode, &h, &cerr) {
		return nil, takeError(cerr)
	}
	wr := &Writer{w: w, h: h}
	runtime.SetFinalizer(wr, (*Writer).Close)
	return wr, nil
}

// Close frees the writer (not w). Close is idempotent.
func (w *Writer) Close() error {
	if w.h != nil {
		C.hep_writer_free(w.h)
		w.h = nil
		runtime.SetFinalizer(w, nil)
	}
	return nil
}

// TurnID is the open turn's id, else the last allocated one (0 before any).
func (w *Writer) TurnID() uint64 { return uint64(C.hep_writer_turn_id(w.h)) }

// emit finishes a writer call: the line it gave (if any) is written with "\n".
func (w *Writer) emit(ok C.bool, line C.HepString, cerr *C.HepError) (string, error) {
	if !ok {
		return "", takeError(cerr)
	}
	s, wrote := takeString(line)
	if !wrote {
		return "", nil
	}
	w.buf = append(append(w.buf[:0], s...), '\n')
	if _, err := w.w.Write(w.buf); err != nil {
		return s, &Error{Kind: KindIO, Message: err.Error()}
	}
	return s, nil
}

// handle is the writer's handle, or an error once closed.
func (w *Writer) handle() (*C.HepWriter, error) {
	if w.h == nil {
		return nil, &Error{Kind: KindInvalidArgument, Message: "the writer is closed"}
	}
	return w.h, nil
}

// Header writes hep_header with session, once; later calls write nothing.
func (w *Writer) Header(session string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_header(h, text(session), &line, &cerr), line, cerr)
}

// AgentStart writes agent_start: only the first call writes; it opens a turn.
func (w *Writer) AgentStart() (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_agent_start(h, &line, &cerr), line, cerr)
}

// TurnStart opens a turn if none is open; it writes nothing.
func (w *Writer) TurnStart() (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_turn_start(h, &line, &cerr), line, cerr)
}

// MessageStart writes message_start, only for role "assistant".
func (w *Writer) MessageStart(role string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_message_start(h, text(role), &line, &cerr), line, cerr)
}

// MessageDelta writes message_delta with a chunk of assistant text.
func (w *Writer) MessageDelta(delta string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_message_delta(h, text(delta), &line, &cerr), line, cerr)
}

// ToolStart writes tool_start; argsJSON is the JSON text of the argument object (its key
// order and number spellings kept).
func (w *Writer) ToolStart(id, name, argsJSON string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_tool_start(h, text(id), text(name), text(argsJSON), &line, &cerr), line, cerr)
}

// ToolDelta writes tool_delta; an empty update writes nothing.
func (w *Writer) ToolDelta(id, update string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_tool_delta(h, text(id), text(update), &line, &cerr), line, cerr)
}

// ToolLiveness writes tool_liveness with the wire name of action (`heartbeat`,
// `cancel_retry`, ...), outputBytes (nil: absent) and detail (nil or empty: omitted).
func (w *Writer) ToolLiveness(id, name, action string, elapsedMS uint64, outputBytes *uint64, detail *string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var bytes *C.uint64_t
	if outputBytes != nil {
		v := C.uint64_t(*outputBytes)
		bytes = &v
	}
	var d *C.HepText
	if detail != nil {
		t := text(*detail)
		if t.ptr != nil {
			pin.Pin(t.ptr) // a *HepText points to Go memory that holds a Go pointer
		}
		d = &t
	}
	var line C.HepString
	var cerr *C.HepError
	ok := C.hep_writer_tool_liveness(h, text(id), text(name), text(action), C.uint64_t(elapsedMS), bytes, d, &line, &cerr)
	return w.emit(ok, line, cerr)
}

// TurnDone writes turn_done for the open turn with its tool results, usage and stop
// reason; it closes the turn.
func (w *Writer) TurnDone(message string, results []ToolResult, usage Usage, stopReason string) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var pin runtime.Pinner
	defer pin.Unpin()
	var first *C.HepToolResult
	if len(results) > 0 {
		cs := make([]C.HepToolResult, len(results))
		for i, r := range results {
			cs[i] = C.HepToolResult{id: text(r.ID), name: text(r.Name), ok: C.bool(r.OK), text: text(r.Text)}
			for _, t := range []C.HepText{cs[i].id, cs[i].name, cs[i].text} {
				if t.ptr != nil {
					pin.Pin(unsafe.Pointer(t.ptr)) // the array holds Go pointers
				}
			}
		}
		first = &cs[0]
	}
	u := C.HepUsage{input: C.uint64_t(usage.Input), output: C.uint64_t(usage.Output), cost: C.double(usage.Cost)}
	var line C.HepString
	var cerr *C.HepError
	ok := C.hep_writer_turn_done(h, text(message), first, C.size_t(len(results)), u, text(stopReason), &line, &cerr)
	return w.emit(ok, line, cerr)
}

// TurnError writes turn_error for the open turn; it closes the turn.
func (w *Writer) TurnError(message string, fatal bool) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_turn_error(h, text(message), C.bool(fatal), &line, &cerr), line, cerr)
}

// Cancelled writes cancelled for the open turn; it closes the turn.
func (w *Writer) Cancelled() (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_cancelled(h, &line, &cerr), line, cerr)
}

// CompactionStart writes compaction_start: the open turn's id, or the next one.
func (w *Writer) CompactionStart() (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_compaction_start(h, &line, &cerr), line, cerr)
}

// CompactionEnd writes compaction_end with tokensFreed.
func (w *Writer) CompactionEnd(tokensFreed uint64) (string, error) {
	h, err := w.handle()
	if err != nil {
		return "", err
	}
	var line C.HepString
	var cerr *C.HepError
	return w.emit(C.hep_writer_compaction_end(h, C.uint64_t(tokensFreed), &line, &cerr), line, cerr)
}
