package hep

// #include "hep.h"
import "C"

import (
	"runtime"
	"time"
	"unsafe"
)

// SuperviseOptions is how a run is supervised; DefaultSuperviseOptions gives the core's
// policy.
type SuperviseOptions struct {
	// How stdout is read.
	Stream Options
	// The longest the run may take before it is cancelled (reason timeout); 0: no timeout.
	Timeout time.Duration
	// The longest the child may go without writing a frame before it is cancelled (reason
	// idle); 0: none.
	IdleTimeout time.Duration
	// After SIGINT, the wait before SIGTERM (default 12 s).
	InterruptGrace time.Duration
	// After SIGTERM, the wait before SIGKILL (default 2 s).
	TerminateGrace time.Duration
	// After the child exits, how long its pipes are still read (default 2 s).
	Drain time.Duration
	// Bytes of stderr kept for the result.
	StderrTailBytes uint64
	// The longest stderr line handed over live.
	MaxStderrLine uint64
	// Bytes of events waiting for the consumer above which stdout is paused.
	PauseAtBytes uint64
}

// DefaultSuperviseOptions is the core's policy: no timeouts; SIGINT, SIGTERM 12 s later,
// SIGKILL 2 s after that; a 2 s drain; the stream defaults.
func DefaultSuperviseOptions() SuperviseOptions {
	c := C.hep_supervise_options_default()
	return SuperviseOptions{
		Stream:          DefaultOptions(),
		InterruptGrace:  millis(c.interrupt_grace_ms),
		TerminateGrace:  millis(c.terminate_grace_ms),
		Drain:           millis(c.drain_ms),
		StderrTailBytes: uint64(c.stderr_tail_bytes),
		MaxStderrLine:   uint64(c.max_stderr_line),
		PauseAtBytes:    uint64(c.pause_at_bytes),
	}
}

func millis(ms C.uint64_t) time.Duration { return time.Duration(ms) * time.Millisecond }

func ms(d time.Duration) C.uint64_t {
	if d < 0 {
		return 0
	}
	return C.uint64_t(d / time.Millisecond)
}

// CancelReason is why a run is cancelled.
type CancelReason int32

// The reasons.
const (
	CancelUser    CancelReason = C.HEP_CANCEL_REASON_USER
	CancelTimeout CancelReason = C.HEP_CANCEL_REASON_TIMEOUT
	CancelIdle    CancelReason = C.HEP_CANCEL_REASON_IDLE
)

// ExitKind is how a child ended.
type ExitKind int32

// The ways a child ends.
const (
	// It exited with a code.
	ExitCode ExitKind = C.HEP_EXIT_KIND_CODE
	// A signal killed it.
	ExitSignal ExitKind = C.HEP_EXIT_KIND_SIGNAL
	// It is gone, but how is unknown (something else reaped it).
	ExitUnknown ExitKind = C.HEP_EXIT_KIND_UNKNOWN
)

// ActionKind is what a driver must do.
type ActionKind int32

// The actions.
const (
	// Nothing waits.
	ActionNone ActionKind = C.HEP_ACTION_KIND_NONE
	// Send Signal to the child's process group (a step of a cancel).
	ActionSignal ActionKind = C.HEP_ACTION_KIND_SIGNAL
	// The child exited: SIGKILL its process group, so that nothing it left there outlives it.
	ActionKillGroup ActionKind = C.HEP_ACTION_KIND_KILL_GROUP
	// Stop reading stdout: the consumer is behind.
	ActionPauseStdout ActionKind = C.HEP_ACTION_KIND_PAUSE_STDOUT
	// Read stdout again.
	ActionResumeStdout ActionKind = C.HEP_ACTION_KIND_RESUME_STDOUT
	// Stop reading and close both pipes: the drain after the exit is over.
	ActionClosePipes ActionKind = C.HEP_ACTION_KIND_CLOSE_PIPES
)

// Action is what the supervisor orders; the signal fields are those of an ActionSignal.
type Action struct {
	// What to do.
	Kind ActionKind
	// The POSIX number of the signal to send (2, 15, 9).
	Signal int
	// Why the run is being cancelled.
	Reason CancelReason
	// Whether a next step follows if the child has not exited by then.
	HasNext bool
	// The next step's signal number.
	NextSignal int
	// The wait before the next step.
	NextAfter time.Duration
}

// Event is one event of the stdout stream: a frame (with its line number) or a notice (a
// violation, a skipped line, the halt).
type Event struct {
	// The frame, nil for a notice.
	Frame Frame
	// The frame's 1-based line number.
	Line uint64
	// A breach of a consumer guarantee.
	Violation *Violation
	// A line that could not be read; reading goes on.
	Skipped *Error
	// The stream stopped (strict mode, a refused version); always the last event.
	Halted *Error
}

// Supervisor is hep-core's supervision policy, a state machine without I/O: told what the
// child did and when (a duration since any fixed origin), it answers with actions, events,
// stderr lines, the next deadline and, once the run is over, the result. Start and Command
// drive one; the supervise conformance vectors drive one on a made-up clock. Not safe for
// concurrent use; Close frees it.
type Supervisor struct {
	h *C.HepSupervisor
}

// NewSupervisor makes a supervisor for a child started at now.
func NewSupervisor(opts SuperviseOptions, now time.Duration) (*Supervisor, error) {
	c := C.HepSuperviseOptions{
		stream:             options([]Option{func(o *Options) { *o = opts.Stream }}),
		has_timeout:        opts.Timeout > 0,
		timeout_ms:         ms(opts.Timeout),
		has_idle_timeout:   opts.IdleTimeout > 0,
		idle_timeout_ms:    ms(opts.IdleTimeout),
		interrupt_grace_ms: ms(opts.InterruptGrace),
		terminate_grace_ms: ms(opts.TerminateGrace),
		drain_ms:           ms(opts.Drain),
		stderr_tail_bytes:  C.uint64_t(opts.StderrTailBytes),
		max_stderr_line:    C.uint64_t(opts.MaxStderrLine),
		pause_at_bytes:     C.uint64_t(opts.PauseAtBytes),
	}
	var h *C.HepSupervisor
	var cerr *C.HepError
	if !C.hep_supervisor_new(&c, ms(now), &h, &cerr) {
		return nil, takeError(cerr)
	}
	s := &Supervisor{h: h}
	runtime.SetFinalizer(s, (*Supervisor).Close)
	return s, nil
}

// Close frees the supervisor. Close is idempotent.
func (s *Supervisor) Close() error {
	if s.h != nil {
		C.hep_supervisor_free(s.h)
		s.h = nil
		runtime.SetFinalizer(s, nil)
	}
	return nil
}

// done turns a call's outcome into an error.
func done(ok C.bool, cerr *C.HepError) error {
	if !ok {
		return takeError(cerr)
	}
	return nil
}

// Stdout tells the supervisor that the child wrote data on stdout at now.
func (s *Supervisor) Stdout(now time.Duration, data []byte) error {
	var cerr *C.HepError
	ok := C.hep_supervisor_stdout(s.h, ms(now), (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(data))), C.size_t(len(data)), &cerr)
	runtime.KeepAlive(data)
	return done(ok, cerr)
}

// Stderr tells the supervisor that the child wrote data on stderr at now.
func (s *Supervisor) Stderr(now time.Duration, data []byte) error {
	var cerr *C.HepError
	ok := C.hep_supervisor_stderr(s.h, ms(now), (*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(data))), C.size_t(len(data)), &cerr)
	runtime.KeepAlive(data)
	return done(ok, cerr)
}

// StdoutClosed tells the supervisor that stdout reached its end at now.
func (s *Supervisor) StdoutClosed(now time.Duration) error {
	var cerr *C.HepError
	return done(C.hep_supervisor_stdout_closed(s.h, ms(now), &cerr), cerr)
}

// StderrClosed tells the supervisor that stderr reached its end at now.
func (s *Supervisor) StderrClosed(now time.Duration) error {
	var cerr *C.HepError
	return done(C.hep_supervisor_stderr_closed(s.h, ms(now), &cerr), cerr)
}

// Exited tells the supervisor that the child ended at now: how, and its code or signal.
func (s *Supervisor) Exited(now time.Duration, how ExitKind, value int) error {
	var cerr *C.HepError
	return done(C.hep_supervisor_exited(s.h, ms(now), C.int32_t(how), C.int32_t(value), &cerr), cerr)
}

// Cancel asks at now for the run to be cancelled for reason; interruptGrace (nil: the
// options') replaces the interrupt grace when this request starts the cancel. A second
// cancel by the user takes the ladder's next step at once.
func (s *Supervisor) Cancel(now time.Duration, reason CancelReason, interruptGrace *time.Duration) error {
	var grace *C.uint64_t
	if interruptGrace != nil {
		g := ms(*interruptGrace)
		grace = &g
	}
	var cerr *C.HepError
	return done(C.hep_supervisor_cancel(s.h, ms(now), C.int32_t(reason), grace, &cerr), cerr)
}

// Tick handles every deadline up to now.
func (s *Supervisor) Tick(now time.Duration) error {
	var cerr *C.HepError
	return done(C.hep_supervisor_tick(s.h, ms(now), &cerr), cerr)
}

// SetConsumer says whether someone takes the events as they come (the default): detached,
// stdout is never paused and events wait up to the drop threshold.
func (s *Supervisor) SetConsumer(now time.Duration, attached bool) error {
	var cerr *C.HepError
	return done(C.hep_supervisor_set_consumer(s.h, ms(now), C.bool(attached), &cerr), cerr)
}

// Deadline is when Tick is due next; ok is false when nothing waits for a time.
func (s *Supervisor) Deadline() (deadline time.Duration, ok bool, err error) {
	var d C.int64_t
	var cerr *C.HepError
	if !C.hep_supervisor_deadline(s.h, &d, &cerr) {
		return 0, false, takeError(cerr)
	}
	if d < 0 {
		return 0, false, nil
	}
	return time.Duration(d) * time.Millisecond, true, nil
}

// PollAction is the next action (ActionNone when none waits). Poll until none after each
// call that tells the supervisor something.
func (s *Supervisor) PollAction() (Action, error) {
	var a C.HepAction
	var cerr *C.HepError
	if !C.hep_supervisor_poll_action(s.h, &a, &cerr) {
		return Action{}, takeError(cerr)
	}
	return Action{
		Kind:       ActionKind(a.kind),
		Signal:     int(a.signal),
		Reason:     CancelReason(a.reason),
		HasNext:    bool(a.has_next),
		NextSignal: int(a.next_signal),
		NextAfter:  millis(a.next_after_ms),
	}, nil
}

// PollStderr is the next stderr line (without its line end); ok is false when none waits.
func (s *Supervisor) PollStderr() (line string, ok bool, err error) {
	var out C.HepString
	var cerr *C.HepError
	if !C.hep_supervisor_poll_stderr(s.h, &out, &cerr) {
		return "", false, takeError(cerr)
	}
	line, ok = takeString(out)
	return line, ok, nil
}

// PollEvents takes up to maxEvents events, stopping early once the frames taken hold
// maxBytes bytes of lines (at least one event is taken when one waits).
func (s *Supervisor) PollEvents(maxEvents, maxBytes int) ([]Event, error) {
	var ev C.HepEvents
	var cerr *C.HepError
	if !C.hep_supervisor_poll_events(s.h, C.size_t(maxEvents), C.size_t(maxBytes), &ev, &cerr) {
		C.hep_events_free(ev)
		return nil, takeError(cerr)
	}
	defer C.hep_events_free(ev)
	var items []Item
	if ev.frames.data != nil {
		buf := unsafe.Slice((*byte)(unsafe.Pointer(ev.frames.data)), int(ev.frames.len))
		var err error
		if _, items, err = decodeBatch(buf, int(ev.frames.frames), true); err != nil {
			return nil, err
		}
	}
	var notices []C.HepNotice
	if ev.notices != nil {
		notices = unsafe.Slice(ev.notices, int(ev.notices_len))
	}
	out := make([]Event, 0, len(items)+len(notices))
	next := 0
	for _, n := range notices {
		for ; next < int(n.after_frames) && next < len(items); next++ {
			out = append(out, Event{Frame: items[next].Frame, Line: items[next].Line})
		}
		out = append(out, notice(n))
	}
	for ; next < len(items); next++ {
		out = append(out, Event{Frame: items[next].Frame, Line: items[next].Line})
	}
	return out, nil
}

// notice copies a notice out of the library's memory (freed with its events).
func notice(n C.HepNotice) Event {
	switch n.kind {
	case C.HEP_NOTICE_KIND_VIOLATION:
		v := n.violation
		out := &Violation{
			Code:     copyString(v.code),
			Severity: copyString(v.severity),
			Line:     uint64(v.line),
			Message:  copyString(v.message),
		}
		if v.has_turn_id {
			id := uint64(v.turn_id)
			out.TurnID = &id
		}
		return Event{Violation: out}
	case C.HEP_NOTICE_KIND_SKIPPED:
		return Event{Skipped: copyError(n.error)}
	}
	return Event{Halted: copyError(n.error)}
}

// copyError copies an error the caller does not own.
func copyError(e *C.HepError) *Error {
	if e == nil {
		return &Error{Kind: KindInternal, Message: "a notice without its error"}
	}
	return &Error{Kind: kindOf(int32(e.kind)), Line: uint64(e.line), Column: uint64(e.column), Message: copyString(e.message), Excerpt: copyString(e.excerpt)}
}

// Result is the run's result once it is over (nil before): the stream's verdict with the
// supervision report.
func (s *Supervisor) Result() (*Result, error) {
	var out C.HepBytes
	var cerr *C.HepError
	if !C.hep_supervisor_result_binary(s.h, &out, &cerr) {
		return nil, takeError(cerr)
	}
	if out.data == nil {
		return nil, nil
	}
	return decodeResultBinary(out)
}
