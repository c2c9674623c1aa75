package main

import (
	"fmt"

	hep "github.com/hep-protocol/hep/bindings-go"
)

const chunkSize = 64 << 10

// hepFeed feeds each stream in 64 KiB slices to a fresh hep.Stream, reads every field of
// every frame into sink, and finishes with exit code 0; every stream must be ok,
// conforming, without violations or skipped lines, with one frame per line. It returns the
// frames read.
func hepFeed(c *corpus, sink *uint64) (int, error) { return hepRead(c, sink, true) }

// hepFeedOnly is hepFeed without Finish (so without the verdict check): what Feed alone
// costs, for reference.
func hepFeedOnly(c *corpus, sink *uint64) (int, error) { return hepRead(c, sink, false) }

func hepRead(c *corpus, sink *uint64, finish bool) (int, error) {
	total := 0
	for i, data := range c.streams {
		s, err := hep.NewStream()
		if err != nil {
			return total, err
		}
		for start := 0; start < len(data); start += chunkSize {
			frames, err := s.Feed(data[start:min(start+chunkSize, len(data))])
			if err != nil {
				s.Close()
				return total, fmt.Errorf("stream %d: %w", i, err)
			}
			for _, f := range frames {
				*sink += readHepFrame(f)
			}
			total += len(frames)
		}
		if !finish {
			s.Close()
			continue
		}
		r, err := s.Finish(0)
		s.Close()
		if err != nil {
			return total, fmt.Errorf("stream %d: %w", i, err)
		}
		if r.Verdict != hep.VerdictOK || !r.Conforms || r.ViolationCount != 0 || r.SkippedCount != 0 || r.Run.Frames != r.Lines {
			return total, fmt.Errorf("stream %d: verdict %s, conforms %v, %d violations, %d skipped, %d frames of %d lines",
				i, r.Verdict, r.Conforms, r.ViolationCount, r.SkippedCount, r.Run.Frames, r.Lines)
		}
	}
	return total, nil
}

// readHepFrame reads every field of f: string lengths and numbers, summed.
func readHepFrame(f hep.Frame) uint64 {
	switch f := f.(type) {
	case *hep.MessageDelta:
		return f.TurnID + uint64(len(f.Delta))
	case *hep.ToolDelta:
		return f.TurnID + uint64(len(f.ID)+len(f.Update))
	case *hep.ToolLiveness:
		n := f.TurnID + uint64(len(f.ID)+len(f.Name)+len(f.Action)) + f.ElapsedMS
		if f.OutputBytes != nil {
			n += *f.OutputBytes
		}
		if f.Detail != nil {
			n += uint64(len(*f.Detail))
		}
		return n
	case *hep.ToolStart:
		return f.TurnID + uint64(len(f.ID)+len(f.Name)+len(f.ArgsSummary))
	case *hep.MessageStart:
		return f.TurnID + uint64(len(f.Role))
	case *hep.TurnDone:
		n := f.TurnID + uint64(len(f.Message)+len(f.StopReason)) + f.Usage.Input + f.Usage.Output + uint64(f.Usage.Cost*1e6)
		for _, t := range f.ToolResults {
			n += uint64(len(t.ID) + len(t.Name) + len(t.Text))
			if t.OK {
				n++
			}
		}
		return n
	case *hep.TurnError:
		n := f.TurnID + uint64(len(f.Error))
		if f.Fatal {
			n++
		}
		return n
	case *hep.HepHeader:
		return uint64(len(f.Hep) + len(f.Fah) + len(f.Session))
	case *hep.AgentStart:
		return f.TurnID
	case *hep.Cancelled:
		return f.TurnID
	case *hep.CompactionStart:
		return f.TurnID
	case *hep.CompactionEnd:
		return f.TurnID + f.TokensFreed
	}
	return 0
}
