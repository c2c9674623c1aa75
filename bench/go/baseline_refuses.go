package main

import (
	"encoding/json"
	"fmt"
)

// brokenStreams are streams the hand-written check must refuse: each breaks one rule.
var brokenStreams = []string{
	`{"type":"agent_start","turn_id":1}` + "\n",
	`{"type":"hep_header","hep":"v2","fah":"1","session":"s"}` + "\n",
	`{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\n" + `{"type":"message_delta","delta":"hi"}` + "\n",
	`{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\n" + `{"type":"message_delta","turn_id":1}` + "\n",
	`{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\n" + `{"type":"tool_liveness","turn_id":1,"id":"c","name":"bash","action":"nap","elapsed_ms":5}` + "\n",
	`{"type":"hep_header","hep":"v1","fah":"1","session":"s"}` + "\n" + `{"type":"turn_done","turn_id":1,"message":"","tool_results":[],"usage":{"input":1,"output":2},"stop_reason":"stop"}` + "\n",
}

// checkRefuses makes sure the baselines' check is a real one: it must refuse every broken
// stream.
func checkRefuses() error {
	for i, s := range brokenStreams {
		c := &corpus{name: "broken", streams: [][]byte{[]byte(s)}}
		var sink uint64
		if _, err := scanDecode(c, json.Unmarshal, &sink); err == nil {
			return fmt.Errorf("the hand-written check accepts broken stream %d: %s", i, s)
		}
	}
	return nil
}
