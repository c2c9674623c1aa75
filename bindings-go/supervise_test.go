//go:build unix

package hep_test

import (
	"context"
	"errors"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func TestARunMirrorsTheSimulatorAndIsJudged(t *testing.T) {
	run, err := hep.Start(context.Background(), simulator(t), "simulate", "--speed", "0", "--scenario", "tools")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for f, err := range run.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		types = append(types, f.Type())
	}
	result, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	if result.Verdict != hep.VerdictOK || uint64(len(types)) != result.Run.Frames || types[0] != "hep_header" {
		t.Fatalf("%s, %d frames handed over of %d: %v", result.Verdict, len(types), result.Run.Frames, result.Reasons)
	}
	if s := result.Supervision; s == nil || s.CancelledBy != nil || len(s.Signals) != 0 {
		t.Fatalf("supervision %+v", s)
	}
}

func TestWaitAloneGivesTheResult(t *testing.T) {
	run, err := hep.Start(context.Background(), simulator(t), "simulate", "--speed", "0", "--scenario", "error")
	if err != nil {
		t.Fatal(err)
	}
	result, err := run.Wait()
	if err != nil || result.Verdict != hep.VerdictFailed || *result.ExitCode != 1 {
		t.Fatalf("%+v %v", result, err)
	}
}

func TestCancellingTheContextRunsTheLadder(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	run, err := hep.Start(ctx, simulator(t), "simulate", "--scenario", "cancel-me")
	if err != nil {
		t.Fatal(err)
	}
	for f, err := range run.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if f.Type() == "message_delta" {
			cancel()
		}
	}
	result, err := run.Wait()
	if err != nil {
		t.Fatal(err)
	}
	s := result.Supervision
	if result.Verdict != hep.VerdictCancelled || s.CancelledBy == nil || *s.CancelledBy != "user" || len(s.Signals) != 1 || s.Signals[0].Signal != "SIGINT" {
		t.Fatalf("%s %v %+v", result.Verdict, result.Reasons, s)
	}
}

func TestAMissingProgramFailsToStart(t *testing.T) {
	if _, err := hep.Start(context.Background(), "/nonexistent/harness"); err == nil {
		t.Fatal("started")
	}
	if _, err := hep.Command("no-such-harness-on-path").Start(context.Background()); err == nil {
		t.Fatal("started")
	}
}

func TestARefusedVersionHaltsASupervisedRun(t *testing.T) {
	cmd := shell(`echo '{"type":"hep_header","hep":"v2","fah":"1","session":"s"}'; echo '{"type":"agent_start","turn_id":1}'`)
	run, err := cmd.Start(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	result, err := run.Wait()
	if err != nil || result.Halted == nil || !errors.Is(result.Halted, hep.ErrUnsupportedVersion) || result.Verdict != hep.VerdictProtocolError {
		t.Fatalf("%+v %v", result, err)
	}
}
