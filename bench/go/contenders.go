package main

import (
	"encoding/json"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
)

// contenders are the cases, hep's first (the ratios divide by the first one's time).
func contenders() []benchCase {
	return []benchCase{
		{"a. hep Stream.Feed 64K + Finish", hepFeed, true},
		{"a2. hep Stream.Feed 64K, no Finish (ref.)", hepFeedOnly, true},
		{"b. bufio.Scanner + encoding/json + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, json.Unmarshal, sink)
		}, false},
		{"c. bufio.Scanner + goccy/go-json + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, gojson.Unmarshal, sink)
		}, false},
		{"d. bufio.Scanner + bytedance/sonic + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, sonic.Unmarshal, sink)
		}, false},
	}
}
