#!/bin/sh
# A hostile HEP emitter, for the terminal-safety tests of `hep` and of every example
# supervisor: each text field of the stream carries terminal escape sequences (clear
# screen, window title, OSC 52 clipboard write), C1 controls, BEL, backspace, CR, DEL,
# NUL and bidi overrides and isolates, tagged with the field's name (`DELTA:`, `NAME:`,
# ...); so do a prose line and the stderr. A safe viewer shows all of it as visible
# escapes (`\x1b[2J`, `\u{202e}`) and passes none of it to the terminal.
#
#     sh examples/hostile/emit.sh            # the stream (stdout) and the hostile stderr
#
# This file is ASCII: JSON escapes (`\u001b`) and printf octal escapes (`\033`) make the
# hostile characters only when it runs. Exit code 0.

# The payload, as JSON escapes: CSI clear screen, OSC 0 title, OSC 52 clipboard, C1 CSI
# and OSC, backspace, CR, DEL, RLO, LRI, RLI, FSI, PDI, NUL.
P='\u001b[2J\u001b]0;title\u0007\u001b]52;c;aGk=\u0007\u009b31m\u009d0;t\u0007\b\r\u007f\u202e\u2066\u2067\u2068\u2069\u0000|'

printf '%s\n' \
    "{\"type\":\"hep_header\",\"hep\":\"v1.HEP:$P\",\"fah\":\"FAH:$P\",\"session\":\"SESSION:$P\"}" \
    '{"type":"agent_start","turn_id":1}' \
    '{"type":"message_start","turn_id":1,"role":"assistant"}' \
    "{\"type\":\"message_delta\",\"turn_id\":1,\"delta\":\"DELTA:$P\\n\"}" \
    "{\"type\":\"tool_start\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"NAME:$P\",\"args_summary\":\"ARGS:$P\"}" \
    "{\"type\":\"tool_delta\",\"turn_id\":1,\"id\":\"c1\",\"update\":\"TOOLOUT:$P\\n\"}" \
    "{\"type\":\"tool_delta\",\"turn_id\":1,\"id\":\"ID:$P\",\"update\":\"x\"}" \
    "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"LIVENAME:$P\",\"action\":\"heartbeat\",\"elapsed_ms\":1000,\"detail\":\"DETAIL:$P\"}" \
    "{\"type\":\"tool_liveness\",\"turn_id\":1,\"id\":\"c1\",\"name\":\"n\",\"action\":\"ACTION:$P\",\"elapsed_ms\":2000}" \
    "{\"type\":\"x_TYPE:$P\",\"turn_id\":1}" \
    "{\"type\":\"turn_error\",\"turn_id\":1,\"error\":\"ERROR:$P\",\"fatal\":false}" \
    "{\"type\":\"message_start\",\"turn_id\":2,\"role\":\"ROLE:$P\"}" \
    '{"type":"tool_start","turn_id":2,"id":"c2","name":"bash","args_summary":""}' \
    '{"type":"tool_start","turn_id":2,"id":"c3","name":"bash","args_summary":""}'
# The same characters raw in a JSON string (DEL, C1 CSI and OSC, RLO, LRI, PDI).
printf '{"type":"message_delta","turn_id":2,"delta":"RAW:\177\302\233\302\235\342\200\256\342\201\246\342\201\251|"}\n'
printf '%s\n' "{\"type\":\"turn_done\",\"turn_id\":2,\"message\":\"ANSWER:$P\",\"tool_results\":[{\"id\":\"c2\",\"name\":\"RESULTNAME:$P\",\"ok\":true,\"text\":\"\"},{\"id\":\"c3\",\"name\":\"bash\",\"ok\":false,\"text\":\"RESULT:$P\"}],\"usage\":{\"input\":1,\"output\":1,\"cost\":0.5},\"stop_reason\":\"STOP:$P\"}"
# A prose line with a raw RLO, C1 CSI, DEL, ESC sequence, CR, backspace and BEL (not JSON:
# skipped, and its start quoted in the report).
printf 'PROSE:\342\200\256\302\233\177\033[2J\r\010\007|\n'
# The stderr: the same, with NUL, and a lone byte 0x9b (an 8-bit CSI, not UTF-8).
printf 'STDERR:\033[2J\033]0;title\007\033]52;c;aGk=\007\302\233\302\235\010\015\177\342\200\256\342\201\246\000\233|\n' >&2
