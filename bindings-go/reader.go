package hep

import (
	"errors"
	"io"
	"iter"
)

// readSize is how much a Reader asks of its source at a time.
const readSize = 64 << 10

// Reader reads a HEP v1 stream from an io.Reader (a harness's stdout, a file).
type Reader struct {
	src    io.Reader
	stream *Stream
	err    error
}

// NewReader reads r with the core's defaults changed by opts.
func NewReader(r io.Reader, opts ...Option) *Reader {
	s, err := NewStream(opts...)
	return &Reader{src: r, stream: s, err: err}
}

// Frames yields each frame as it is read. Reading stops at the end of the source, at a
// read error or when the stream halts; the error is yielded last, with a nil frame.
// Skipped lines and violations are not errors: they are in Result.
func (r *Reader) Frames() iter.Seq2[Frame, error] {
	return func(yield func(Frame, error) bool) {
		if r.err != nil {
			yield(nil, r.err)
			return
		}
		buf := make([]byte, readSize)
		for {
			n, readErr := r.src.Read(buf)
			if n > 0 {
				frames, err := r.stream.Feed(buf[:n])
				for _, f := range frames {
					if !yield(f, nil) {
						return
					}
				}
				if err != nil {
					r.err = err
					yield(nil, err)
					return
				}
			}
			if errors.Is(readErr, io.EOF) {
				return
			}
			if readErr != nil {
				r.err = &Error{Kind: KindIO, Message: readErr.Error()}
				yield(nil, r.err)
				return
			}
		}
	}
}

// Result ends the input and judges the run for the harness's exit code (see
// Stream.Finish).
func (r *Reader) Result(exitCode int) (*Result, error) {
	if r.stream == nil {
		return nil, r.err
	}
	return r.stream.Finish(exitCode)
}

// ResultUnknownExit is Result when the harness's exit code is not known (a pipe hides it).
func (r *Reader) ResultUnknownExit() (*Result, error) {
	if r.stream == nil {
		return nil, r.err
	}
	return r.stream.FinishUnknownExit()
}

// Close frees the reader's stream (not its source).
func (r *Reader) Close() error {
	if r.stream == nil {
		return nil
	}
	return r.stream.Close()
}
