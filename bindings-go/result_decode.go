package hep

// #include "hep.h"
import "C"

import "unsafe"

// decodeResultBinary decodes a judged run in hep-core's result layout (the `batch::result`
// module of hep-core, listed in docs/c.md) and frees the library's bytes. The bytes are
// copied into one Go string; the Result's strings are substrings of it, so they live as
// long as any of them does.
func decodeResultBinary(b C.HepBytes) (*Result, error) {
	if b.data == nil {
		return nil, &Error{Kind: KindInternal, Message: "the library gave no result"}
	}
	text := string(unsafe.Slice((*byte)(unsafe.Pointer(b.data)), int(b.len)))
	C.hep_bytes_free(b)
	r := batchReader{buf: unsafe.Slice(unsafe.StringData(text), len(text)), text: text}
	res := r.result()
	if r.short || r.pos != len(r.buf) {
		return nil, &Error{Kind: KindInternal, Message: "the library's result does not decode (a libhep of another version?)"}
	}
	return res, nil
}

// readOptional reads an optional value: nil when absent.
func readOptional[T any](r *batchReader, read func(*batchReader) T) *T {
	if !r.present() {
		return nil
	}
	v := read(r)
	return &v
}

func (r *batchReader) i32() int32 {
	return int32(r.u32())
}

func (r *batchReader) result() *Result {
	return &Result{
		Verdict:        Verdict(r.str()),
		Reasons:        readList(r, (*batchReader).str),
		ExitCode:       readOptional(r, (*batchReader).i32),
		Conforms:       r.bool(),
		Halted:         readOptional(r, (*batchReader).readError),
		Run:            r.readRun(),
		Violations:     readList(r, (*batchReader).readViolation),
		ViolationCount: r.u64(),
		Skipped:        readList(r, func(r *batchReader) *Error { e := r.readError(); return &e }),
		SkippedCount:   r.u64(),
		UntrackedCalls: r.u64(),
		Lines:          r.u64(),
		Supervision:    readOptional(r, (*batchReader).readSupervision),
	}
}

func (r *batchReader) readError() Error {
	return Error{Kind: Kind(r.str()), Line: r.u64(), Column: r.u64(), Message: r.str(), Excerpt: r.str()}
}

func (r *batchReader) readRun() RunState {
	return RunState{
		Header: readOptional(r, func(r *batchReader) HepHeader {
			return HepHeader{Hep: r.str(), Fah: r.str(), Session: r.str()}
		}),
		Turns:        readList(r, (*batchReader).readTurn),
		TurnsDropped: r.u64(),
		Usage:        r.readUsage(),
		Compactions:  r.u64(),
		TokensFreed:  r.u64(),
		LastTerminal: readOptional(r, func(r *batchReader) Terminal {
			return Terminal{Type: r.str(), TurnID: r.u64()}
		}),
		Answer: readOptional(r, (*batchReader).str),
		Frames: r.u64(),
	}
}

func (r *batchReader) readTurn() Turn {
	return Turn{
		TurnID:             r.u64(),
		Text:               r.str(),
		TextDropped:        r.u64(),
		Tools:              readList(r, (*batchReader).readToolCall),
		ToolsDropped:       r.u64(),
		End:                readOptional(r, (*batchReader).str),
		Message:            readOptional(r, (*batchReader).str),
		Usage:              readOptional(r, (*batchReader).readUsage),
		StopReason:         readOptional(r, (*batchReader).str),
		Error:              readOptional(r, (*batchReader).str),
		Compactions:        readList(r, (*batchReader).u64),
		CompactionsDropped: r.u64(),
		BytesDropped:       r.u64(),
	}
}

func (r *batchReader) readToolCall() ToolCall {
	return ToolCall{
		ID:               r.str(),
		Name:             r.str(),
		ArgsSummary:      r.str(),
		Status:           r.str(),
		Output:           r.str(),
		OutputDropped:    r.u64(),
		Result:           readOptional(r, (*batchReader).str),
		LastLiveness:     readOptional(r, (*batchReader).readLiveness),
		Followups:        readList(r, (*batchReader).readLiveness),
		FollowupsDropped: r.u64(),
	}
}

func (r *batchReader) readLiveness() Liveness {
	return Liveness{
		Action:      r.str(),
		ElapsedMS:   r.u64(),
		OutputBytes: readOptional(r, (*batchReader).u64),
		Detail:      readOptional(r, (*batchReader).str),
	}
}

func (r *batchReader) readViolation() Violation {
	return Violation{
		Code:     r.str(),
		Severity: r.str(),
		Line:     r.u64(),
		TurnID:   readOptional(r, (*batchReader).u64),
		Message:  r.str(),
	}
}

func (r *batchReader) readSupervision() Supervision {
	return Supervision{
		TimedOut:    r.bool(),
		CancelledBy: readOptional(r, (*batchReader).str),
		Signals: readList(r, func(r *batchReader) SentSignal {
			return SentSignal{AtMS: r.u64(), Signal: r.str()}
		}),
		StderrTail:     r.str(),
		StderrDropped:  r.u64(),
		NoticesDropped: r.u64(),
		DurationMS:     r.u64(),
	}
}
