package hep

// Verdict is the judgement of a run: VerdictOK, VerdictFailed, VerdictCancelled,
// VerdictIncomplete or VerdictProtocolError.
type Verdict string

// The verdicts.
const (
	VerdictOK            Verdict = "ok"
	VerdictFailed        Verdict = "failed"
	VerdictCancelled     Verdict = "cancelled"
	VerdictIncomplete    Verdict = "incomplete"
	VerdictProtocolError Verdict = "protocol_error"
)

// Result is a judged run (hep-core's RunResult, the object `hep watch --format json`
// prints).
type Result struct {
	// The verdict.
	Verdict Verdict `json:"verdict"`
	// Why, in words, in order.
	Reasons []string `json:"reasons"`
	// The harness's exit code, nil when unknown.
	ExitCode *int32 `json:"exit_code"`
	// No error-severity violation, no skipped line, not halted.
	Conforms bool `json:"conforms"`
	// The error that stopped the stream, if one did.
	Halted *Error `json:"halted"`
	// What the frames said.
	Run RunState `json:"run"`
	// The violations kept (live ones, then end-of-stream ones).
	Violations []Violation `json:"violations"`
	// Every violation, kept or not.
	ViolationCount uint64 `json:"violation_count"`
	// The skipped lines kept.
	Skipped []*Error `json:"skipped"`
	// Every skipped line, kept or not.
	SkippedCount uint64 `json:"skipped_count"`
	// tool_starts whose id the validator did not remember (Limits.MaxTrackedCalls).
	UntrackedCalls uint64 `json:"untracked_calls"`
	// The lines read.
	Lines uint64 `json:"lines"`
	// How a supervised run went (nil for a Stream's result).
	Supervision *Supervision `json:"supervision"`
}

// Supervision is how a supervised run went, besides what its stream says.
type Supervision struct {
	// The timeout ran out and cancelled the run.
	TimedOut bool `json:"timed_out"`
	// Who cancelled the run (`user`, `timeout`, `idle`), nil when nobody did.
	CancelledBy *string `json:"cancelled_by"`
	// The cancel's signals, in order.
	Signals []SentSignal `json:"signals"`
	// The end of the child's stderr (at most SuperviseOptions.StderrTailBytes).
	StderrTail string `json:"stderr_tail"`
	// Bytes of stderr before the tail, not kept.
	StderrDropped uint64 `json:"stderr_dropped"`
	// Events and stderr lines not handed over because the consumer fell far behind.
	NoticesDropped uint64 `json:"notices_dropped"`
	// Milliseconds from the start to the end of the run.
	DurationMS uint64 `json:"duration_ms"`
}

// SentSignal is a signal of a cancel.
type SentSignal struct {
	// Milliseconds after the supervisor started.
	AtMS uint64 `json:"at_ms"`
	// The signal's name (`SIGINT`, `SIGTERM`, `SIGKILL`).
	Signal string `json:"signal"`
}

// RunState is what a supervisor mirrors of a run (hep-core's run::Run).
type RunState struct {
	// The header, once read.
	Header *HepHeader `json:"header"`
	// The retained turns, oldest first.
	Turns []Turn `json:"turns"`
	// Turns not kept (Limits.MaxTurns, Limits.MaxRetainedBytes).
	TurnsDropped uint64 `json:"turns_dropped"`
	// Usage over every turn_done.
	Usage Usage `json:"usage"`
	// Compactions seen.
	Compactions uint64 `json:"compactions"`
	// Tokens freed by compactions.
	TokensFreed uint64 `json:"tokens_freed"`
	// The last terminal frame, if any.
	LastTerminal *Terminal `json:"last_terminal"`
	// The user-visible answer, if any.
	Answer *string `json:"answer"`
	// Frames read.
	Frames uint64 `json:"frames"`
}

// Terminal is a terminal frame's type and turn.
type Terminal struct {
	// `turn_done`, `turn_error` or `cancelled`.
	Type string `json:"type"`
	// Its turn.
	TurnID uint64 `json:"turn_id"`
}

// Turn is one round as mirrored.
type Turn struct {
	// Round id.
	TurnID uint64 `json:"turn_id"`
	// The assembled assistant text (up to Limits.MaxTextBytes).
	Text string `json:"text"`
	// Text bytes not kept.
	TextDropped uint64 `json:"text_dropped"`
	// The tool calls kept.
	Tools []ToolCall `json:"tools"`
	// Tool calls not kept.
	ToolsDropped uint64 `json:"tools_dropped"`
	// How it ended (`turn_done`, `turn_error`, `cancelled`), nil while open.
	End *string `json:"end"`
	// turn_done's message.
	Message *string `json:"message"`
	// turn_done's usage.
	Usage *Usage `json:"usage"`
	// turn_done's stop reason.
	StopReason *string `json:"stop_reason"`
	// turn_error's error.
	Error *string `json:"error"`
	// Tokens freed by each compaction kept.
	Compactions []uint64 `json:"compactions"`
	// Compactions not kept.
	CompactionsDropped uint64 `json:"compactions_dropped"`
	// Text bytes dropped over the turn's parts (Limits.MaxRetainedBytes).
	BytesDropped uint64 `json:"bytes_dropped"`
}

// ToolCall is one tool call as mirrored.
type ToolCall struct {
	// Tool call id.
	ID string `json:"id"`
	// Tool name.
	Name string `json:"name"`
	// The arguments as tool_start gave them.
	ArgsSummary string `json:"args_summary"`
	// `running`, `ok` or `failed`.
	Status string `json:"status"`
	// Partial output (up to Limits.MaxToolOutputBytes).
	Output string `json:"output"`
	// Output bytes not kept.
	OutputDropped uint64 `json:"output_dropped"`
	// The result text from turn_done, if given.
	Result *string `json:"result"`
	// The last tool_liveness.
	LastLiveness *Liveness `json:"last_liveness"`
	// The stuck-call follow-ups kept.
	Followups []Liveness `json:"followups"`
	// Follow-ups not kept.
	FollowupsDropped uint64 `json:"followups_dropped"`
}

// Liveness is a tool_liveness as mirrored.
type Liveness struct {
	// `heartbeat`, `cancel_retry`, `background_convert`, `escalate` or `advisory`.
	Action string `json:"action"`
	// Milliseconds since the call started.
	ElapsedMS uint64 `json:"elapsed_ms"`
	// Captured-output size in bytes, if reported.
	OutputBytes *uint64 `json:"output_bytes"`
	// Detail, if any.
	Detail *string `json:"detail"`
}

// Violation is a breach of a consumer guarantee.
type Violation struct {
	// The guarantee's snake_case code (`unterminated_turn`, ...).
	Code string `json:"code"`
	// `error` or `warning`.
	Severity string `json:"severity"`
	// The 1-based line of the offending frame (0 for end-of-stream checks).
	Line uint64 `json:"line"`
	// The round concerned, if any.
	TurnID *uint64 `json:"turn_id"`
	// What happened, in words.
	Message string `json:"message"`
}
