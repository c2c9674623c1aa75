package hep

// #include "hep.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Stream reads one HEP v1 stream: bytes in, in chunks of any size, frames out. Violations
// and skipped lines are not errors: they are kept for the Result. A Stream is not safe
// for concurrent use; Close frees it (a forgotten one is freed when collected).
type Stream struct {
	h *C.HepStream
}

// NewStream makes a stream reading with the core's defaults changed by opts.
func NewStream(opts ...Option) (*Stream, error) {
	o := options(opts)
	var h *C.HepStream
	var cerr *C.HepError
	if !C.hep_stream_new(&o, &h, &cerr) {
		return nil, takeError(cerr)
	}
	s := &Stream{h: h}
	runtime.SetFinalizer(s, (*Stream).Close)
	return s, nil
}

// Feed reads chunk and returns the frames it completes. It returns an *Error when the
// stream halts (strict mode, a refused protocol version), with the frames before the halt.
func (s *Stream) Feed(chunk []byte) ([]Frame, error) {
	frames, _, err := s.feed(chunk, false)
	return frames, err
}

// FeedItems is Feed giving each frame with its line number and line as read.
func (s *Stream) FeedItems(chunk []byte) ([]Item, error) {
	_, items, err := s.feed(chunk, true)
	return items, err
}

func (s *Stream) feed(chunk []byte, items bool) ([]Frame, []Item, error) {
	if s.h == nil {
		return nil, nil, &Error{Kind: KindInvalidArgument, Message: "the stream is closed"}
	}
	var batch C.HepBatch
	var cerr *C.HepError
	ok := C.hep_stream_feed(s.h, (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(chunk))), C.size_t(len(chunk)), &batch, &cerr)
	runtime.KeepAlive(chunk)
	var frames []Frame
	var out []Item
	var err error
	if batch.data != nil {
		buf := unsafe.Slice((*byte)(unsafe.Pointer(batch.data)), int(batch.len))
		frames, out, err = decodeBatch(buf, int(batch.frames), items)
	}
	C.hep_batch_free(batch)
	if !ok {
		return frames, out, takeError(cerr)
	}
	return frames, out, err
}

// Finish ends the input (a partial last line is skipped as truncated) and judges the run
// for the harness's exit code. A second call gives the same result.
func (s *Stream) Finish(exitCode int) (*Result, error) {
	return s.finish(int32(exitCode), true)
}

// FinishUnknownExit is Finish when the harness's exit code is not known.
func (s *Stream) FinishUnknownExit() (*Result, error) {
	return s.finish(0, false)
}

func (s *Stream) finish(code int32, known bool) (*Result, error) {
	if s.h == nil {
		return nil, &Error{Kind: KindInvalidArgument, Message: "the stream is closed"}
	}
	var out C.HepBytes
	var cerr *C.HepError
	if !C.hep_stream_finish_binary(s.h, C.int32_t(code), C.bool(known), &out, &cerr) {
		C.hep_bytes_free(out)
		return nil, takeError(cerr)
	}
	return decodeResultBinary(out)
}

// Close frees the stream; later calls fail with KindInvalidArgument. Close is idempotent.
func (s *Stream) Close() error {
	if s.h != nil {
		C.hep_stream_free(s.h)
		s.h = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}
