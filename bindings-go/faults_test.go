//go:build unix

package hep_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	hep "github.com/hep-protocol/hep/bindings-go"
)

const header = `{"type":"hep_header","hep":"v1","fah":"1","session":"s"}`

// shell describes `sh -c script` with short graces, so that a ladder ends in a test's time.
func shell(script string) *hep.Cmd {
	cmd := hep.Command("sh", "-c", script)
	cmd.Options.InterruptGrace = 300 * time.Millisecond
	cmd.Options.TerminateGrace = 300 * time.Millisecond
	cmd.Options.Drain = 300 * time.Millisecond
	return cmd
}

// waitFor starts cmd, takes its frames, waits for the result and checks that the child
// is reaped (no zombie): its pid is gone.
func waitFor(t *testing.T, ctx context.Context, cmd *hep.Cmd) (*hep.Result, int) {
	t.Helper()
	run, err := cmd.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	frames := 0
	for _, err := range run.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		frames++
	}
	result, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if uint64(frames) != result.Run.Frames {
		t.Fatalf("%d frames handed over of %d", frames, result.Run.Frames)
	}
	if err := syscall.Kill(run.Pid(), 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("the child %d is still there (a zombie?): %v", run.Pid(), err)
	}
	return result, frames
}

// gone fails unless pid disappears within a few seconds (killed, and reaped by init).
func gone(t *testing.T, pid int) {
	t.Helper()
	for range 300 {
		if errors.Is(syscall.Kill(pid, 0), syscall.ESRCH) {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = syscall.Kill(pid, syscall.SIGKILL)
	t.Fatalf("process %d outlived the run (an orphan)", pid)
}

func TestAFloodIsReadToTheEnd(t *testing.T) {
	script := "printf '%s\\n' '" + header + "'; yes '{\"type\":\"plan_update\",\"turn_id\":1}' | head -n 200000"
	result, frames := waitFor(t, context.Background(), shell(script))
	if frames != 200001 || result.Lines != 200001 {
		t.Fatalf("%d frames, %d lines", frames, result.Lines)
	}
}

func TestAChildThatClosesStdoutIsStillAwaited(t *testing.T) {
	result, _ := waitFor(t, context.Background(), shell("exec 1>&-; sleep 0.2; exit 3"))
	if *result.ExitCode != 3 || result.Verdict != hep.VerdictFailed && result.Verdict != hep.VerdictIncomplete {
		t.Fatalf("%s %v", result.Verdict, result.Reasons)
	}
	if result.Supervision.DurationMS < 200 {
		t.Fatalf("the run ended after %d ms, before the child", result.Supervision.DurationMS)
	}
}

func TestAnIgnoredSigintEscalatesToSigterm(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	cmd := shell("trap '' INT; echo '" + header + "'; sleep 30")
	run, err := cmd.Start(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for range run.Frames() {
		cancel()
	}
	result, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range result.Supervision.Signals {
		names = append(names, s.Signal)
	}
	if strings.Join(names, " ") != "SIGINT SIGTERM" || *result.Supervision.CancelledBy != "user" {
		t.Fatalf("signals %v, %+v", names, result.Supervision)
	}
}

func TestASecondCancelTakesTheNextStepAtOnce(t *testing.T) {
	cmd := shell("trap '' INT TERM; echo '" + header + "'; while :; do sleep 0.05; done")
	cmd.Options.InterruptGrace = time.Minute
	cmd.Options.TerminateGrace = time.Minute
	run, err := cmd.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for range run.Frames() { // the header: the traps are set
		go func() {
			run.Cancel()
			time.Sleep(100 * time.Millisecond)
			run.Cancel()
			time.Sleep(100 * time.Millisecond)
			run.Cancel()
		}()
	}
	result, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(result.Supervision.Signals); n != 3 || result.Supervision.DurationMS > 10_000 {
		t.Fatalf("%d signals in %d ms", n, result.Supervision.DurationMS)
	}
}

func TestTheTimeoutCancelsTheRun(t *testing.T) {
	cmd := shell("echo '" + header + "'; sleep 30")
	cmd.Options.Timeout = 300 * time.Millisecond
	result, _ := waitFor(t, context.Background(), cmd)
	s := result.Supervision
	if !s.TimedOut || *s.CancelledBy != "timeout" || s.DurationMS > 10_000 {
		t.Fatalf("%+v", s)
	}
}

func TestTheIdleTimeoutCancelsASilentRun(t *testing.T) {
	cmd := shell("echo '" + header + "'; sleep 30")
	cmd.Options.IdleTimeout = 300 * time.Millisecond
	result, _ := waitFor(t, context.Background(), cmd)
	if s := result.Supervision; *s.CancelledBy != "idle" || s.TimedOut {
		t.Fatalf("%+v", s)
	}
}

func TestNothingInTheGroupOutlivesTheRun(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	result, _ := waitFor(t, context.Background(), shell("sleep 30 & echo $! > "+pidFile+"; exit 0"))
	if *result.ExitCode != 0 || result.Supervision.DurationMS > 10_000 {
		t.Fatalf("%+v", result.Supervision)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	gone(t, pid)
}

func TestAGrandchildInItsOwnSessionEndsTheDrain(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The sleep before the exit lets setsid leave the group before the group is killed.
	run, err := shell("setsid sleep 30 & echo $! > " + pidFile + "; sleep 0.2; exit 0").Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	result, err := run.Wait()
	data, _ := os.ReadFile(pidFile)
	if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); perr == nil {
		_ = syscall.Kill(pid, syscall.SIGKILL) // out of the group: the test's to stop
	}
	if err != nil {
		t.Fatal(err)
	}
	if d := result.Supervision.DurationMS; d < 300 || d > 10_000 || len(data) == 0 {
		t.Fatalf("the run ended after %d ms (the drain is 300 ms), grandchild %q", d, data)
	}
}

func TestStderrLinesComeAsTheyAreWritten(t *testing.T) {
	cmd := shell("echo one >&2; echo two >&2; echo '" + header + "'")
	var lines []string
	cmd.OnStderr = func(line string) { lines = append(lines, line) }
	result, _ := waitFor(t, context.Background(), cmd)
	if strings.Join(lines, ",") != "one,two" || result.Supervision.StderrTail != "one\ntwo\n" {
		t.Fatalf("%q, tail %q", lines, result.Supervision.StderrTail)
	}
}
