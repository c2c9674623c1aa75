package hep_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
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

// simulator is the hep command's simulator (target/debug/hep, built by scripts/go-test.sh).
func simulator(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs("../target/debug/hep")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath(path); err != nil {
		t.Fatalf("%s: %v (cargo build -p hep-cli)", path, err)
	}
	return path
}

func TestEverySimulatedRunReadsTheSameInAnyChunks(t *testing.T) {
	bin := simulator(t)
	for _, scenario := range []string{"chat", "tools", "error", "compaction", "stuck", "big-output", "future", "over-window", "skipped-compaction"} {
		data, err := exec.Command(bin, "simulate", "--speed", "0", "--scenario", scenario).Output()
		if err != nil && len(data) == 0 {
			t.Fatalf("%s: %v", scenario, err)
		}
		whole, err := outcome([][]byte{data}, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(whole["frames"].([]any)) < 3 {
			t.Fatalf("%s: %d frames", scenario, len(whole["frames"].([]any)))
		}
		for _, size := range []int{1, 7, 4096} {
			got, err := outcome(pieces(data, size), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := sameJSON(fmt.Sprintf("%s fed in chunks of %d bytes", scenario, size), whole, got); err != nil {
				t.Fatal(err)
			}
		}
	}
}
