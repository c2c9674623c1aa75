package hep_test

import (
	"fmt"
	"math"
	"time"

	hep "github.com/hep-protocol/hep/bindings-go"
)

var (
	signalNames = map[int]string{2: "SIGINT", 9: "SIGKILL", 15: "SIGTERM"}
	reasonNames = map[hep.CancelReason]string{hep.CancelUser: "user", hep.CancelTimeout: "timeout", hep.CancelIdle: "idle"}
	actionNames = map[hep.ActionKind]string{
		hep.ActionSignal: "signal", hep.ActionKillGroup: "kill_group", hep.ActionPauseStdout: "pause_stdout",
		hep.ActionResumeStdout: "resume_stdout", hep.ActionClosePipes: "close_pipes",
	}
)

func msOf(d time.Duration) uint64 { return uint64(d / time.Millisecond) }

// timeline is what a supervise case observes.
type timeline struct {
	sup         *hep.Supervisor
	auto        bool
	actions     []any
	stderrLines []string
	frames      []string
	finishedAt  *uint64
	result      *hep.Result
}

func (tl *timeline) takeActions(at uint64) error {
	for {
		a, err := tl.sup.PollAction()
		if err != nil || a.Kind == hep.ActionNone {
			return err
		}
		entry := object{"at": at, "action": actionNames[a.Kind]}
		if a.Kind == hep.ActionSignal {
			entry["signal"] = signalNames[a.Signal]
			entry["reason"] = reasonNames[a.Reason]
			entry["next"] = nil
			if a.HasNext {
				entry["next"] = object{"signal": signalNames[a.NextSignal], "after_ms": msOf(a.NextAfter)}
			}
		}
		tl.actions = append(tl.actions, entry)
	}
}

// takeEvent takes one event; false when none waits.
func (tl *timeline) takeEvent() (bool, error) {
	events, err := tl.sup.PollEvents(1, math.MaxInt32)
	if err != nil || len(events) == 0 {
		return false, err
	}
	for _, e := range events {
		if e.Frame != nil {
			tl.frames = append(tl.frames, e.Frame.Type())
		}
	}
	return true, nil
}

// collect takes every action, stderr line and (auto) event with the actions after each.
func (tl *timeline) collect(at uint64) error {
	if err := tl.takeActions(at); err != nil {
		return err
	}
	for {
		line, ok, err := tl.sup.PollStderr()
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		tl.stderrLines = append(tl.stderrLines, line)
	}
	for tl.auto {
		took, err := tl.takeEvent()
		if err != nil {
			return err
		}
		if !took {
			break
		}
		if err := tl.takeActions(at); err != nil {
			return err
		}
	}
	if tl.result == nil {
		r, err := tl.sup.Result()
		if err != nil {
			return err
		}
		text, err := hep.SupervisorResultJSON(tl.sup)
		if err != nil {
			return err
		}
		if (r == nil) != (text == nil) {
			return fmt.Errorf("the binary result is %v, the JSON result %q", r, text)
		}
		if r != nil {
			if err := sameAsJSON(r, text); err != nil {
				return err
			}
		}
		if r != nil {
			tl.result, tl.finishedAt = r, &at
		}
	}
	return nil
}

// superviseOptions are a case's options over the core's.
func superviseOptions(c object) (hep.SuperviseOptions, error) {
	o := hep.DefaultSuperviseOptions()
	given, _ := c["options"].(object)
	for key, v := range given {
		if v == nil {
			continue
		}
		if b, ok := v.(bool); ok && key == "strict" {
			o.Stream.Strict = b
			continue
		}
		n, ok := v.(float64)
		if !ok {
			return o, fmt.Errorf("option `%s` is no number", key)
		}
		d := time.Duration(n) * time.Millisecond
		switch key {
		case "timeout_ms":
			o.Timeout = d
		case "idle_timeout_ms":
			o.IdleTimeout = d
		case "interrupt_grace_ms":
			o.InterruptGrace = d
		case "terminate_grace_ms":
			o.TerminateGrace = d
		case "drain_ms":
			o.Drain = d
		case "stderr_tail_bytes":
			o.StderrTailBytes = uint64(n)
		case "max_stderr_line":
			o.MaxStderrLine = uint64(n)
		case "pause_at_bytes":
			o.PauseAtBytes = uint64(n)
		case "max_reports":
			o.Stream.Limits.MaxReports = uint64(n)
		default:
			return o, fmt.Errorf("unknown option `%s`", key)
		}
	}
	return o, nil
}

// apply does one step at now.
func (tl *timeline) apply(step object, now time.Duration) error {
	sup := tl.sup
	switch {
	case step["stdout"] != nil:
		s, err := textOf(step["stdout"])
		if err != nil {
			return err
		}
		return sup.Stdout(now, []byte(s))
	case step["stderr"] != nil:
		s, err := textOf(step["stderr"])
		if err != nil {
			return err
		}
		return sup.Stderr(now, []byte(s))
	case step["cancel"] != nil:
		reason := map[any]hep.CancelReason{"user": hep.CancelUser, "timeout": hep.CancelTimeout, "idle": hep.CancelIdle}
		r, ok := reason[step["cancel"]]
		if !ok {
			return fmt.Errorf("unknown cancel reason %v", step["cancel"])
		}
		var grace *time.Duration
		if g, ok := step["grace_ms"].(float64); ok {
			d := time.Duration(g) * time.Millisecond
			grace = &d
		}
		return sup.Cancel(now, r, grace)
	case step["exit"] != nil:
		if step["exit"] == "unknown" {
			return sup.Exited(now, hep.ExitUnknown, 0)
		}
		exit, _ := step["exit"].(object)
		if code, ok := exit["code"].(float64); ok {
			return sup.Exited(now, hep.ExitCode, int(code))
		}
		if signal, ok := exit["signal"].(float64); ok {
			return sup.Exited(now, hep.ExitSignal, int(signal))
		}
		return fmt.Errorf("`exit` needs a code or a signal: %v", exit)
	case step["close"] != nil:
		which := step["close"]
		if which == "stdout" || which == "both" {
			if err := sup.StdoutClosed(now); err != nil {
				return err
			}
		}
		if which == "stderr" || which == "both" {
			return sup.StderrClosed(now)
		}
		return nil
	case step["consumer"] != nil:
		return sup.SetConsumer(now, step["consumer"] == "attached")
	case step["consume"] != nil:
		n, _ := step["consume"].(float64)
		for range int(n) {
			if took, err := tl.takeEvent(); err != nil || !took {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("a step that does nothing: %v", step)
}

// tickUntil ticks at every deadline up to limit (all of them when limit is nil).
func (tl *timeline) tickUntil(clock *uint64, limit *uint64) error {
	for range 100000 {
		if limit == nil && tl.result != nil {
			return nil
		}
		due, ok, err := tl.sup.Deadline()
		if err != nil || !ok || (limit != nil && msOf(due) > *limit) {
			return err
		}
		*clock = max(*clock, msOf(due))
		if err := tl.sup.Tick(time.Duration(*clock) * time.Millisecond); err != nil {
			return err
		}
		if err := tl.collect(*clock); err != nil {
			return err
		}
	}
	return fmt.Errorf("the deadline does not move past %d ms", *clock)
}

func runSupervise(c object) error {
	opts, err := superviseOptions(c)
	if err != nil {
		return err
	}
	sup, err := hep.NewSupervisor(opts, 0)
	if err != nil {
		return err
	}
	defer sup.Close()
	tl := &timeline{sup: sup, auto: c["consume"] != "manual"}
	var clock uint64
	for i, s := range c["steps"].([]any) {
		step := s.(object)
		at := uint64(step["at"].(float64))
		if err := tl.tickUntil(&clock, &at); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
		clock = at
		if err := tl.apply(step, time.Duration(at)*time.Millisecond); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
		if err := tl.collect(at); err != nil {
			return fmt.Errorf("steps[%d]: %w", i, err)
		}
	}
	if err := tl.tickUntil(&clock, nil); err != nil {
		return err
	}
	for {
		if took, err := tl.takeEvent(); err != nil || !took {
			if err != nil {
				return err
			}
			break
		}
	}
	return tl.check(c["expect"].(object))
}

func (tl *timeline) check(expect object) error {
	for key, want := range expect {
		var got any
		switch key {
		case "actions":
			got = tl.actions
		case "stderr_lines":
			got = tl.stderrLines
		case "frames":
			got = tl.frames
		case "finished_at":
			got = tl.finishedAt
		case "result":
			if tl.result == nil || tl.result.Supervision == nil {
				return fmt.Errorf("the run did not finish with a supervised result")
			}
			r, s := tl.result, tl.result.Supervision
			outcome := object{
				"verdict": r.Verdict, "exit_code": r.ExitCode, "reasons": r.Reasons, "conforms": r.Conforms,
				"timed_out": s.TimedOut, "cancelled_by": s.CancelledBy, "signals": s.Signals,
				"stderr_tail": s.StderrTail, "stderr_dropped": s.StderrDropped,
				"notices_dropped": s.NoticesDropped, "duration_ms": s.DurationMS,
			}
			for k, w := range want.(object) {
				g, known := outcome[k]
				if !known {
					return fmt.Errorf("unknown `expect.result` key `%s`", k)
				}
				if err := sameJSON("`result."+k+"`", w, g); err != nil {
					return err
				}
			}
			continue
		default:
			return fmt.Errorf("unknown `expect` key `%s`", key)
		}
		if err := sameJSON("`"+key+"`", want, got); err != nil {
			return err
		}
	}
	return nil
}
