package main

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// table is one corpus's timings: times[i] holds case names[i]'s runs.
type table struct {
	corpus *corpus
	names  []string
	hep    []bool
	times  [][]time.Duration
}

func (t table) median(i int) time.Duration {
	s := slices.Clone(t.times[i])
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func (t table) print() {
	c := t.corpus
	fmt.Printf("%s — %.1f MB, %d streams, %d frames\n", c.name, float64(c.bytes)/1e6, len(c.streams), c.frames)
	fmt.Printf("  %-44s %10s %8s %10s %14s %8s\n", "case", "median ms", "MB/s", "Mframes/s", "min..max ms", "row/hep")
	hep := t.median(0)
	for i, name := range t.names {
		med := t.median(i)
		secs := med.Seconds()
		fmt.Printf("  %-44s %10.1f %8.0f %10.2f %14s %7.2fx\n", name, ms(med), float64(c.bytes)/1e6/secs,
			float64(c.frames)/1e6/secs, fmt.Sprintf("%.0f..%.0f", ms(slices.Min(t.times[i])), ms(slices.Max(t.times[i]))),
			float64(med)/float64(hep))
	}
}

// printRatios prints, per alternative (a row not hep's), the first row's speed over its
// speed on every corpus.
func printRatios(tables []table) {
	if len(tables) == 0 || !slices.Contains(tables[0].hep, false) {
		return
	}
	header := []string{"ratio (hep speed / alternative speed)"}
	for _, t := range tables {
		header = append(header, t.corpus.name)
	}
	fmt.Println()
	fmt.Println("| " + strings.Join(header, " | ") + " |")
	fmt.Println("|" + strings.Repeat("---|", len(header)))
	for i, name := range tables[0].names {
		if tables[0].hep[i] {
			continue
		}
		row := []string{"hep (a.) / " + name}
		for _, t := range tables {
			row = append(row, fmt.Sprintf("%.2fx", float64(t.median(i))/float64(t.median(0))))
		}
		fmt.Println("| " + strings.Join(row, " | ") + " |")
	}
}
