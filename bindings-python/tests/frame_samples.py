"""Sample lines for every frame class, shared by the frame and stream tests."""

from __future__ import annotations

from typing import Any, Dict, Tuple, Type

import hep

# One line per frame class, with every optional field present where there is one.
SAMPLES: Dict[Type[Any], str] = {
    hep.HepHeader: '{"type":"hep_header","hep":"v1","fah":"1.2.3","session":"abc"}',
    hep.AgentStart: '{"type":"agent_start","turn_id":1}',
    hep.MessageStart: '{"type":"message_start","turn_id":1,"role":"assistant"}',
    hep.MessageDelta: '{"type":"message_delta","turn_id":1,"delta":"hel\\"lo\\n"}',
    hep.ToolStart: '{"type":"tool_start","turn_id":1,"id":"c1","name":"read","args_summary":"path=\\"notes.txt\\""}',
    hep.ToolDelta: '{"type":"tool_delta","turn_id":1,"id":"c1","update":"partial"}',
    hep.ToolLiveness: (
        '{"type":"tool_liveness","turn_id":1,"id":"c1","name":"bash","action":"heartbeat",'
        '"elapsed_ms":5000,"output_bytes":12,"detail":"attempt 2"}'
    ),
    hep.TurnDone: (
        '{"type":"turn_done","turn_id":1,"message":"done reading","tool_results":'
        '[{"id":"c1","name":"read","ok":true,"text":"data"}],"usage":{"input":12,"output":34,"cost":0.5},'
        '"stop_reason":"stop"}'
    ),
    hep.TurnError: '{"type":"turn_error","turn_id":2,"error":"rate limited","fatal":true}',
    hep.Cancelled: '{"type":"cancelled","turn_id":3}',
    hep.CompactionStart: '{"type":"compaction_start","turn_id":1}',
    hep.CompactionEnd: '{"type":"compaction_end","turn_id":1,"tokens_freed":4200}',
    hep.UnknownFrame: '{"type":"future_frame","turn_id":4,"x":[1,{"y":null}]}',
}
KNOWN = [cls for cls in SAMPLES if cls is not hep.UnknownFrame]
# Each class's `type`: the wire type, or "unknown" for a type this version does not know
# (docs/api.md; the wire type is then `frame_type`).
TYPES = {
    hep.HepHeader: "hep_header",
    hep.AgentStart: "agent_start",
    hep.MessageStart: "message_start",
    hep.MessageDelta: "message_delta",
    hep.ToolStart: "tool_start",
    hep.ToolDelta: "tool_delta",
    hep.ToolLiveness: "tool_liveness",
    hep.TurnDone: "turn_done",
    hep.TurnError: "turn_error",
    hep.Cancelled: "cancelled",
    hep.CompactionStart: "compaction_start",
    hep.CompactionEnd: "compaction_end",
    hep.UnknownFrame: "unknown",
}
# The spec's key order for each frame (after `type`).
KEY_ORDER: Dict[Type[Any], Tuple[str, ...]] = {
    hep.HepHeader: ("hep", "fah", "session"),
    hep.AgentStart: ("turn_id",),
    hep.MessageStart: ("turn_id", "role"),
    hep.MessageDelta: ("turn_id", "delta"),
    hep.ToolStart: ("turn_id", "id", "name", "args_summary"),
    hep.ToolDelta: ("turn_id", "id", "update"),
    hep.ToolLiveness: ("turn_id", "id", "name", "action", "elapsed_ms", "output_bytes", "detail"),
    hep.TurnDone: ("turn_id", "message", "tool_results", "usage", "stop_reason"),
    hep.TurnError: ("turn_id", "error", "fatal"),
    hep.Cancelled: ("turn_id",),
    hep.CompactionStart: ("turn_id",),
    hep.CompactionEnd: ("turn_id", "tokens_freed"),
}

ids = [cls.__name__ for cls in SAMPLES]
known_ids = [cls.__name__ for cls in KNOWN]


def sample(cls: Type[Any]) -> Any:
    return hep.parse_line(SAMPLES[cls])
