package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// corpus is one corpus dumped by `hep-bench --dump-corpus DIR`: each stream's bytes.
type corpus struct {
	name    string
	streams [][]byte
	frames  int
	bytes   int
}

// loadCorpus reads dir/corpus.json and its streams, and checks them against the manifest.
func loadCorpus(dir string) (*corpus, error) {
	raw, err := os.ReadFile(filepath.Join(dir, "corpus.json"))
	if err != nil {
		return nil, err
	}
	var manifest struct {
		Name    string `json:"name"`
		Streams int    `json:"streams"`
		Frames  int    `json:"frames"`
		Bytes   int    `json:"bytes"`
	}
	if err := json.Unmarshal(raw, &manifest); err != nil {
		return nil, fmt.Errorf("%s/corpus.json: not a hep-bench manifest: %w", dir, err)
	}
	c := &corpus{name: manifest.Name}
	for i := 0; i < manifest.Streams; i++ {
		data, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("stream-%04d.jsonl", i)))
		if err != nil {
			return nil, err
		}
		c.streams = append(c.streams, data)
		c.frames += bytes.Count(data, []byte{'\n'})
		c.bytes += len(data)
	}
	if c.frames != manifest.Frames || c.bytes != manifest.Bytes {
		return nil, fmt.Errorf("%s: the files hold %d frames / %d bytes, the manifest says %d / %d",
			c.name, c.frames, c.bytes, manifest.Frames, manifest.Bytes)
	}
	return c, nil
}
