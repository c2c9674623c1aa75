package main

import (
	"encoding/json"

	"github.com/bytedance/sonic"
	gojson "github.com/goccy/go-json"
)

// contenders are the cases, hep first (the ratios divide by its time).
func contenders() []benchCase {
	return []benchCase{
		{"a. hep Stream.Feed 64K + Finish", hepFeed},
		{"b. bufio.Scanner + encoding/json + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, json.Unmarshal, sink)
		}},
		{"c. bufio.Scanner + goccy/go-json + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, gojson.Unmarshal, sink)
		}},
		{"d. bufio.Scanner + bytedance/sonic + check", func(c *corpus, sink *uint64) (int, error) {
			return scanDecode(c, sonic.Unmarshal, sink)
		}},
	}
}
