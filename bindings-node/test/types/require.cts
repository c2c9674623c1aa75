// The CommonJS entry has the same types.
import hep = require('hep');

const frame: hep.Frame = hep.parseLine('{"type":"cancelled","turn_id":1}');
const code: number = hep.EXIT_CANCELLED;
const sup: hep.Supervisor = new hep.Supervisor(performance.now(), { idleTimeoutMs: 1000 });
const action: hep.SupervisorAction | null = sup.pollAction();
// @ts-expect-error the package has no default frame
hep.frame;
void [frame, code, action];
