package hep

// #include "hep.h"
import "C"

// Limits caps what the run keeps (hep-core's run::Limits); DefaultLimits gives the core's.
type Limits struct {
	// Most recent turns kept.
	MaxTurns uint64
	// Bytes of assembled assistant text kept per turn.
	MaxTextBytes uint64
	// Bytes of partial output kept per tool call.
	MaxToolOutputBytes uint64
	// Tool calls kept per turn.
	MaxToolsPerTurn uint64
	// Stuck-call follow-ups kept per tool call.
	MaxFollowups uint64
	// Compactions kept per turn.
	MaxCompactionsPerTurn uint64
	// Tool-call ids the validator remembers per round.
	MaxTrackedCalls uint64
	// Violations and skipped lines kept (each list).
	MaxReports uint64
	// Text bytes kept over all turns.
	MaxRetainedBytes uint64
}

// Options says how a stream reads; DefaultOptions gives the core's defaults.
type Options struct {
	// Stop at the first error-severity violation or skipped line (default false).
	Strict bool
	// The longest accepted line in bytes, without its line end (default 16 MiB).
	MaxLineBytes uint64
	// What the run keeps.
	Limits Limits
}

// An Option changes Options.
type Option func(*Options)

// WithStrict makes the stream stop at the first error-severity violation or skipped line.
func WithStrict(strict bool) Option { return func(o *Options) { o.Strict = strict } }

// WithMaxLineBytes sets the longest accepted line.
func WithMaxLineBytes(n uint64) Option { return func(o *Options) { o.MaxLineBytes = n } }

// WithLimits sets what the run keeps (start from DefaultLimits).
func WithLimits(l Limits) Option { return func(o *Options) { o.Limits = l } }

// DefaultOptions is the core's defaults: lenient, 16 MiB lines, DefaultLimits.
func DefaultOptions() Options {
	c := C.hep_stream_options_default()
	return Options{Strict: bool(c.strict), MaxLineBytes: uint64(c.max_line_bytes), Limits: limitsOf(c.limits)}
}

// DefaultLimits is the core's limits.
func DefaultLimits() Limits { return DefaultOptions().Limits }

func limitsOf(c C.HepLimits) Limits {
	return Limits{
		MaxTurns:              uint64(c.max_turns),
		MaxTextBytes:          uint64(c.max_text_bytes),
		MaxToolOutputBytes:    uint64(c.max_tool_output_bytes),
		MaxToolsPerTurn:       uint64(c.max_tools_per_turn),
		MaxFollowups:          uint64(c.max_followups),
		MaxCompactionsPerTurn: uint64(c.max_compactions_per_turn),
		MaxTrackedCalls:       uint64(c.max_tracked_calls),
		MaxReports:            uint64(c.max_reports),
		MaxRetainedBytes:      uint64(c.max_retained_bytes),
	}
}

// options applies opts to the defaults, as the C ABI takes them.
func options(opts []Option) C.HepStreamOptions {
	o := DefaultOptions()
	for _, opt := range opts {
		opt(&o)
	}
	l := o.Limits
	return C.HepStreamOptions{
		strict:         C.bool(o.Strict),
		max_line_bytes: C.uint64_t(o.MaxLineBytes),
		limits: C.HepLimits{
			max_turns:                C.uint64_t(l.MaxTurns),
			max_text_bytes:           C.uint64_t(l.MaxTextBytes),
			max_tool_output_bytes:    C.uint64_t(l.MaxToolOutputBytes),
			max_tools_per_turn:       C.uint64_t(l.MaxToolsPerTurn),
			max_followups:            C.uint64_t(l.MaxFollowups),
			max_compactions_per_turn: C.uint64_t(l.MaxCompactionsPerTurn),
			max_tracked_calls:        C.uint64_t(l.MaxTrackedCalls),
			max_reports:              C.uint64_t(l.MaxReports),
			max_retained_bytes:       C.uint64_t(l.MaxRetainedBytes),
		},
	}
}
