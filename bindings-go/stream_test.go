package hep_test

import (
	"bytes"
	"errors"
	"io"
	"testing"
	"testing/iotest"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func TestReaderYieldsFramesAndJudgesTheRun(t *testing.T) {
	r := hep.NewReader(iotest.HalfReader(bytes.NewReader(everyFrameType(t))))
	defer r.Close()
	n := 0
	for f, err := range r.Frames() {
		if err != nil {
			t.Fatal(err)
		}
		if f == nil {
			t.Fatal("a nil frame without an error")
		}
		n++
	}
	if n != 12 {
		t.Fatalf("%d frames, want 12", n)
	}
	result, err := r.Result(130)
	if err != nil {
		t.Fatal(err)
	}
	if result.Verdict != hep.VerdictCancelled || result.ExitCode == nil || *result.ExitCode != 130 || result.Run.Header.Session != "s-1" {
		t.Fatalf("%+v", result)
	}
	if len(result.Run.Turns) != 3 || result.Run.Turns[0].Tools[0].LastLiveness.ElapsedMS != 2000 {
		t.Fatalf("turns %+v", result.Run.Turns)
	}
}

func TestReaderStopsWhenTheLoopBreaks(t *testing.T) {
	r := hep.NewReader(iotest.OneByteReader(bytes.NewReader(everyFrameType(t))))
	defer r.Close()
	for f := range r.Frames() {
		if f.Type() != "hep_header" {
			t.Fatalf("first frame %s", f.Type())
		}
		break
	}
	result, err := r.ResultUnknownExit()
	if err != nil || result.ExitCode != nil || result.Run.Frames != 1 {
		t.Fatalf("%+v %v", result, err)
	}
}

func TestReaderYieldsAReadErrorAsIO(t *testing.T) {
	r := hep.NewReader(iotest.ErrReader(io.ErrUnexpectedEOF))
	defer r.Close()
	var last error
	for _, err := range r.Frames() {
		last = err
	}
	if !errors.Is(last, hep.ErrIO) || errors.Is(last, hep.ErrSyntax) {
		t.Fatalf("%v", last)
	}
}

func TestAStrictStreamHaltsWithItsErrorAndTheFramesBefore(t *testing.T) {
	s, err := hep.NewStream(hep.WithStrict(true))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	input := `{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\nnot json\n"
	frames, err := s.Feed([]byte(input))
	if len(frames) != 1 || !errors.Is(err, hep.ErrSyntax) {
		t.Fatalf("frames %v, err %v", frames, err)
	}
	var he *hep.Error
	if !errors.As(err, &he) || he.Line != 2 || he.Column != 1 || he.Excerpt == "" {
		t.Fatalf("%#v", err)
	}
	if got := he.Error(); got != "hep: syntax at line 2, column 1: "+he.Message+" (near `"+he.Excerpt+"`)" {
		t.Fatalf("message %q", got)
	}
	result, err := s.Finish(0)
	if err != nil || result.Halted == nil || result.Halted.Kind != hep.KindSyntax || result.Verdict != hep.VerdictProtocolError {
		t.Fatalf("%+v %v", result, err)
	}
}

func TestALineOverTheMaximumIsSkipped(t *testing.T) {
	s, err := hep.NewStream(hep.WithMaxLineBytes(10))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Feed([]byte(`{"type":"agent_start","turn_id":1}` + "\n")); err != nil {
		t.Fatal(err)
	}
	result, err := s.FinishUnknownExit()
	if err != nil || len(result.Skipped) != 1 || !errors.Is(result.Skipped[0], hep.ErrLineTooLong) || result.ExitCode != nil {
		t.Fatalf("%+v %v", result, err)
	}
}

func TestTheDefaultsAreTheCores(t *testing.T) {
	o := hep.DefaultOptions()
	if o.Strict || o.MaxLineBytes != 16<<20 || o.Limits != hep.DefaultLimits() || o.Limits.MaxTurns == 0 {
		t.Fatalf("%+v", o)
	}
}

func TestAClosedStreamRefusesCalls(t *testing.T) {
	s, err := hep.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal("a second Close fails:", err)
	}
	if _, err := s.Feed([]byte("x")); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("Feed after Close: %v", err)
	}
	if _, err := s.Finish(0); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("Finish after Close: %v", err)
	}
}

func TestAnErrorMatchesOnlyTheSentinelOfItsKind(t *testing.T) {
	err := &hep.Error{Kind: hep.KindWrongType, Line: 3, Column: 9, Message: "m"}
	if !errors.Is(err, hep.ErrWrongType) || errors.Is(err, hep.ErrSyntax) || errors.Is(err, &hep.Error{Kind: hep.KindWrongType}) {
		t.Fatal("errors.Is matches by the kind's sentinel only")
	}
	if got := err.Error(); got != "hep: wrong_type at line 3, column 9: m" {
		t.Fatal(got)
	}
}
