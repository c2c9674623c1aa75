package hep_test

import (
	"bytes"
	"errors"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func TestTheABIRefusesBadArgumentsWithInvalidArgument(t *testing.T) {
	if _, err := hep.NewWriter(&bytes.Buffer{}, "\xff"); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a fah that is not UTF-8: %v", err)
	}
	w, err := hep.NewWriter(&bytes.Buffer{}, "1")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := w.Header("\xc3"); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a session that is not UTF-8: %v", err)
	}
	sup, err := hep.NewSupervisor(hep.DefaultSuperviseOptions(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := sup.Exited(0, hep.ExitKind(99), 0); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("an exit kind outside its enum: %v", err)
	}
	if err := sup.Cancel(0, hep.CancelReason(7), nil); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a reason outside its enum: %v", err)
	}
	if err := sup.Close(); err != nil {
		t.Fatal(err)
	}
	if err := sup.Stdout(0, []byte("x")); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a closed supervisor: %v", err)
	}
	if _, _, err := sup.Deadline(); !errors.Is(err, hep.ErrInvalidArgument) {
		t.Fatalf("a closed supervisor: %v", err)
	}
}

func TestInvalidUTF8OnStdoutIsASkippedLineNotAnError(t *testing.T) {
	s, err := hep.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Feed([]byte("{\"type\":\"x\xff\"}\n")); err != nil {
		t.Fatal(err)
	}
	result, err := s.Finish(0)
	if err != nil || len(result.Skipped) != 1 || !errors.Is(result.Skipped[0], hep.ErrInvalidUTF8) {
		t.Fatalf("%+v %v", result, err)
	}
}
