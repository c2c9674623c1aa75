package hep

import (
	"encoding/binary"
	"math"
)

// batchReader reads the frames of a batch in hep-core's layout (docs/c.md, "The batch
// layout"): little-endian, no alignment. A read past the end sets short and gives zero
// values; the caller checks short once per frame.
type batchReader struct {
	buf   []byte
	pos   int
	short bool
	// text, when not empty, is buf as a string: str then returns substrings of it instead
	// of copies (buf must then be text's own bytes, never written).
	text string
}

func (r *batchReader) take(n int) []byte {
	if r.short || n > len(r.buf)-r.pos {
		r.short = true
		return nil
	}
	b := r.buf[r.pos : r.pos+n]
	r.pos += n
	return b
}

func (r *batchReader) u8() byte {
	if b := r.take(1); b != nil {
		return b[0]
	}
	return 0
}

func (r *batchReader) u32() uint32 {
	if b := r.take(4); b != nil {
		return binary.LittleEndian.Uint32(b)
	}
	return 0
}

func (r *batchReader) u64() uint64 {
	if b := r.take(8); b != nil {
		return binary.LittleEndian.Uint64(b)
	}
	return 0
}

func (r *batchReader) f64() float64 { return math.Float64frombits(r.u64()) }

func (r *batchReader) bool() bool { return r.u8() != 0 }

// present reads an optional value's marker.
func (r *batchReader) present() bool { return r.u8() == 1 }

// str reads a string: a substring of text when the reader has one, else a copy out of the
// buffer (the library's, freed after reading).
func (r *batchReader) str() string {
	b := r.take(int(r.u32()))
	if r.text != "" && b != nil {
		return r.text[r.pos-len(b) : r.pos]
	}
	return string(b)
}

// skipStr passes over a string without copying it.
func (r *batchReader) skipStr() { r.take(int(r.u32())) }

// readList reads a list: its count, then each item with item. Never nil.
func readList[T any](r *batchReader, item func(*batchReader) T) []T {
	n := int(r.u32())
	if r.short || n > len(r.buf)-r.pos { // every item takes at least one byte
		r.short = true
		return []T{}
	}
	out := make([]T, 0, n)
	for range n {
		out = append(out, item(r))
	}
	return out
}

// Item is a frame with where it came from: its 1-based line number and the line as read
// (without its line end).
type Item struct {
	// The 1-based line number.
	Line uint64
	// The line, verbatim.
	Raw string
	// The frame.
	Frame Frame
}

// decodeBatch reads the count items of buf: their frames, and the line numbers and lines
// when items is true.
func decodeBatch(buf []byte, count int, items bool) ([]Frame, []Item, error) {
	r := batchReader{buf: buf}
	frames := make([]Frame, 0, count)
	var out []Item
	if items {
		out = make([]Item, 0, count)
	}
	for r.pos < len(buf) {
		line := r.u64()
		raw := ""
		if items {
			raw = r.str()
		} else {
			r.skipStr()
		}
		tag := r.u8()
		f := r.frame(tag)
		if r.short {
			return frames, out, &Error{Kind: KindInternal, Line: line, Message: "a batch ends inside a frame"}
		}
		if f == nil {
			return frames, out, &Error{Kind: KindInternal, Line: line, Message: "a batch holds a frame tag this version does not know (a newer libhep)"}
		}
		frames = append(frames, f)
		if items {
			out = append(out, Item{Line: line, Raw: raw, Frame: f})
		}
	}
	return frames, out, nil
}
