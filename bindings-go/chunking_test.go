package hep_test

import (
	"fmt"
	"testing"

	hep "github.com/hep-protocol/hep/bindings-go"
)

func TestAnyChunkingGivesTheSameFramesAndResult(t *testing.T) {
	data := everyFrameType(t)
	whole, err := outcome([][]byte{data}, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(whole["frames"].([]any)); n != 12 {
		t.Fatalf("%d frames", n)
	}
	for size := 1; size <= 13; size++ {
		got, err := outcome(pieces(data, size), nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := sameJSON(fmt.Sprintf("fed in chunks of %d bytes", size), whole, got); err != nil {
			t.Fatal(err)
		}
	}
}

func TestAnEmptyChunkGivesNoFrames(t *testing.T) {
	s, err := hep.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, chunk := range [][]byte{nil, {}} {
		if frames, err := s.Feed(chunk); err != nil || len(frames) != 0 {
			t.Fatalf("%v %v", frames, err)
		}
	}
}
