// The first example of the npm page (bindings-node/README.md): supervise `hep simulate`,
// print the assistant's text as it streams, then the verdict. The `hep` binary is $HEP_BIN,
// else `hep` on PATH (`cargo install --path hep-cli`). Exit 0 when the verdict is ok.
//
//     HEP_BIN=target/debug/hep node examples/node/first.mjs

// START first
import { sanitize, spawn } from 'hep';

const run = spawn(process.env.HEP_BIN ?? 'hep', ['simulate', '--speed', '0']);
for await (const frame of run) {
  if (frame.type === 'message_delta') process.stdout.write(sanitize(frame.delta));
  if (frame.type === 'turn_done') process.stdout.write('\n');
}
const result = await run.result;
console.log(`verdict: ${result.verdict}, exit code ${result.exitCode}`);
// END first
process.exitCode = result.verdict === 'ok' ? 0 : 1;
