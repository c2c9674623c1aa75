// Command hep-bench-go measures the Go package's stream path (hep.Stream.Feed in 64 KiB
// chunks) against bufio.Scanner with encoding/json (and drop-in faster decoders) into a
// typed struct plus a check, on the corpora of hep-bench (dumped by
// `hep-bench --dump-corpus DIR`, which bench/go/run.sh does).
//
//	hep-bench-go --corpus-dir DIR [--reps N] [--corpus NAME] [--only SUBSTR] [--cpuprofile FILE]
//
// Every contender reads every field of every frame into a sink. Before timing, the
// baselines' check must refuse a few broken streams, and every case must read the corpus's frame count and the same sink total as hep; every timed run
// must read the frame count again: the bench never reports the speed of a failure.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"
)

// benchCase is one contender: it reads a whole corpus and returns the frames read.
type benchCase struct {
	name string
	run  func(c *corpus, sink *uint64) (int, error)
	// hep marks hep's own rows; the ratios set the first one against each other row.
	hep bool
}

func main() {
	dir := flag.String("corpus-dir", "", "directory written by `hep-bench --dump-corpus` (required)")
	reps := flag.Int("reps", 7, "timed repetitions of each case")
	only := flag.String("corpus", "", "one corpus by name (default: every corpus in the directory)")
	filter := flag.String("only", "", "only the cases whose name contains this")
	profile := flag.String("cpuprofile", "", "write a CPU profile of the timed runs to this file")
	flag.Parse()
	if err := run(*dir, *reps, *only, *filter, *profile); err != nil {
		fmt.Fprintln(os.Stderr, "hep-bench-go:", err)
		os.Exit(1)
	}
}

func run(dir string, reps int, only, filter, profile string) error {
	if dir == "" || reps < 1 {
		return fmt.Errorf("usage: hep-bench-go --corpus-dir DIR [--reps N >= 1] [--corpus NAME] [--only SUBSTR]")
	}
	var cases []benchCase
	for _, c := range contenders() {
		if strings.Contains(c.name, filter) {
			cases = append(cases, c)
		}
	}
	if len(cases) == 0 {
		return fmt.Errorf("no case matches --only %q", filter)
	}
	if err := checkRefuses(); err != nil {
		return err
	}
	names := []string{"delta-heavy", "tool-heavy"}
	if only != "" {
		names = []string{only}
	}
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	fmt.Printf("%s, %s/%s, GOMAXPROCS %d, %d reps (median, min..max; wall clock)\n",
		runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), reps)
	var tables []table
	for _, name := range names {
		c, err := loadCorpus(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		if err := check(c, cases); err != nil {
			return err
		}
		t, err := measure(c, cases, reps)
		if err != nil {
			return err
		}
		t.print()
		tables = append(tables, t)
	}
	printRatios(tables)
	return nil
}

// check runs each case once, untimed (the warm-up): each must read the corpus's frame
// count and the same sink total as the first case.
func check(c *corpus, cases []benchCase) error {
	var want uint64
	for i, bc := range cases {
		var sink uint64
		n, err := bc.run(c, &sink)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", c.name, bc.name, err)
		}
		if n != c.frames {
			return fmt.Errorf("%s, %s: read %d frames of %d", c.name, bc.name, n, c.frames)
		}
		if i == 0 {
			want = sink
		} else if sink != want {
			return fmt.Errorf("%s, %s: read fields summing to %d, %s to %d", c.name, bc.name, sink, cases[0].name, want)
		}
	}
	return nil
}

// measure times reps rounds, round-robin over the cases, with a GC (untimed) before each run.
func measure(c *corpus, cases []benchCase, reps int) (table, error) {
	t := table{corpus: c, names: make([]string, len(cases)), hep: make([]bool, len(cases)), times: make([][]time.Duration, len(cases))}
	for i, bc := range cases {
		t.names[i], t.hep[i] = bc.name, bc.hep
	}
	for r := 0; r < reps; r++ {
		for i, bc := range cases {
			runtime.GC()
			var sink uint64
			start := time.Now()
			n, err := bc.run(c, &sink)
			elapsed := time.Since(start)
			if err != nil {
				return t, fmt.Errorf("%s, %s: %w", c.name, bc.name, err)
			}
			if n != c.frames {
				return t, fmt.Errorf("%s, %s: read %d frames of %d", c.name, bc.name, n, c.frames)
			}
			t.times[i] = append(t.times[i], elapsed)
		}
	}
	return t, nil
}
