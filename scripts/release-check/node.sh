#!/usr/bin/env bash
# The Node release, proven on loopback: the packages published the way the release workflow
# publishes them (docs/release.md), to a private npm registry on 127.0.0.1, then installed
# the way a user installs them and used.
#
# 1. The addon of this machine (bindings-node: `npm run build`, reused when up to date) and
#    the `hep` command (target/debug/hep, the harness the supervisors run).
# 2. The release steps, in a copy of the package under target/release-check/node/: `npm
#    pack` (the main package's files), `napi artifacts` (the addon into its platform package,
#    npm/linux-x64-gnu), its LICENSE, and `napi pre-publish -t npm`, which publishes the
#    platform package and writes the main package's optionalDependencies; then `npm publish`
#    of `hep`. Only this machine's platform can be built here, so pre-publish is given that
#    target alone (a napi config of its own); the main package is then given the
#    optionalDependencies of every target in package.json, as the real release publishes it.
#    npm skips an optional dependency the registry does not have (E404 is not fatal there).
# 3. verdaccio 6.8.0 (pinned by scripts/release-check/verdaccio/package-lock.json; 6.10 wants
#    Node 22), with no uplinks, storage under target/, on 127.0.0.1 and a free port, stopped
#    by its pid when the script ends, also on failure.
# 4. A fresh npm project in a temporary folder: `npm install hep --registry <verdaccio>`; the
#    platform package must come in through `hep`'s optionalDependencies; then a supervisor
#    of `hep simulate` through `require('hep')` and one through `import` (the npm page's
#    first example, examples/node/first.mjs), each with the verdict ok.
#
#     scripts/release-check/node.sh        # from the repository root; CARGO=... honoured
#
# It prints a few progress lines and ends with `release-check node: ok`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PKG=$ROOT/bindings-node
WORK=$ROOT/target/release-check/node
CARGO=${CARGO:-cargo}
STARTED=$SECONDS
mkdir -p "$WORK"
say() { echo "release-check node: $*"; }

# ---- 1. the addon, the hep command, the tools ----
if [ ! -f "$PKG/node_modules/.installed" ] || [ "$PKG/package-lock.json" -nt "$PKG/node_modules/.installed" ]; then
	say "installing the pinned build tools (npm ci in bindings-node)"
	(cd "$PKG" && npm ci --no-audit --no-fund --loglevel=error >/dev/null && touch node_modules/.installed)
fi
say "building the addon (release) and the hep command"
(cd "$PKG" && nice -n 10 npm run --silent build >"$WORK/build.log" 2>&1) || { cat "$WORK/build.log"; exit 1; }
nice -n 10 "$CARGO" build --quiet -p hep-cli
HEP_BIN=$ROOT/target/debug/hep
ADDON=$(cd "$PKG" && ls hep.*.node)
PLATFORM=${ADDON#hep.}
PLATFORM=${PLATFORM%.node}
NAPI=(node "$PKG/node_modules/@napi-rs/cli/dist/cli.js")

REGISTRY_TOOLS=$WORK/verdaccio
if ! cmp -s "$ROOT/scripts/release-check/verdaccio/package-lock.json" "$REGISTRY_TOOLS/package-lock.json" ||
	[ ! -x "$REGISTRY_TOOLS/node_modules/.bin/verdaccio" ]; then
	say "installing verdaccio 6.8.0 (pinned) into target/release-check/node/verdaccio"
	rm -rf "$REGISTRY_TOOLS" && mkdir -p "$REGISTRY_TOOLS"
	cp "$ROOT"/scripts/release-check/verdaccio/package{,-lock}.json "$REGISTRY_TOOLS/"
	(cd "$REGISTRY_TOOLS" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi

# ---- 2. the registry ----
STAGE=$WORK/stage
PROJECT=$(mktemp -d "${TMPDIR:-/tmp}/hep-release-check-node-XXXXXX")
VERDACCIO_PID=
cleanup() {
	if [ -n "$VERDACCIO_PID" ]; then kill "$VERDACCIO_PID" 2>/dev/null || true; fi
	rm -rf "$PROJECT"
}
trap cleanup EXIT
rm -rf "$STAGE" "$WORK/registry" "$WORK/npm-cache"
mkdir -p "$STAGE" "$WORK/registry"

PORT=$(node -e "const s = require('node:net').createServer().listen(0, '127.0.0.1', () => { console.log(s.address().port); s.close(); })")
URL=http://127.0.0.1:$PORT/
cat >"$WORK/registry/config.yaml" <<EOF
storage: $WORK/registry/storage
auth:
  htpasswd:
    file: $WORK/registry/htpasswd
uplinks: {}
packages:
  '**':
    access: \$all
    publish: \$authenticated
web:
  enable: false
log: { type: stdout, format: pretty, level: warn }
EOF
"$REGISTRY_TOOLS/node_modules/.bin/verdaccio" --config "$WORK/registry/config.yaml" --listen "127.0.0.1:$PORT" \
	>"$WORK/registry/verdaccio.log" 2>&1 &
VERDACCIO_PID=$!
# Up when it answers; a user for publishing (verdaccio's npm adduser endpoint), its token in
# an npmrc of this check alone.
TOKEN=$(node - "$URL" <<'EOF'
const url = process.argv[2];
(async () => {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}-/ping`)).ok) break;
    } catch {}
    if (i === 300) throw new Error(`verdaccio did not answer on ${url} in 30 s`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const user = { name: 'release-check', password: 'release-check-password' };
  const response = await fetch(`${url}-/user/org.couchdb.user:${user.name}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  const body = await response.json();
  if (!response.ok || !body.token) throw new Error(`verdaccio refused the user: ${JSON.stringify(body)}`);
  console.log(body.token);
})().catch((e) => { console.error(e.message); process.exit(1); });
EOF
) || { cat "$WORK/registry/verdaccio.log"; exit 1; }
NPMRC=$WORK/npmrc
printf 'registry=%s\n//127.0.0.1:%s/:_authToken=%s\n' "$URL" "$PORT" "$TOKEN" >"$NPMRC"
export npm_config_userconfig=$NPMRC npm_config_registry=$URL npm_config_cache=$WORK/npm-cache
say "verdaccio on $URL (pid $VERDACCIO_PID)"

# ---- 3. publish, as the release does ----
(cd "$PKG" && npm pack --silent --pack-destination "$STAGE" >/dev/null)
mkdir -p "$STAGE/hep/npm" "$STAGE/hep/artifacts/bindings-$PLATFORM"
tar -xzf "$STAGE"/hep-*.tgz -C "$STAGE/hep" --strip-components=1
cp -r "$PKG/npm/$PLATFORM" "$STAGE/hep/npm/"
cp "$PKG/$ADDON" "$STAGE/hep/artifacts/bindings-$PLATFORM/"
# This machine's target alone, for the steps that need every target's addon.
(cd "$STAGE/hep" && node -e "
  const { napi } = require('./package.json');
  const { parseTriple } = require('$PKG/node_modules/@napi-rs/cli');
  const host = napi.targets.filter((t) => parseTriple(t).platformArchABI === '$PLATFORM');
  require('node:fs').writeFileSync('napi-host.json', JSON.stringify({ ...napi, targets: host }));")
"${NAPI[@]}" artifacts --cwd "$STAGE/hep" -c napi-host.json >"$WORK/artifacts.log" 2>&1 || { cat "$WORK/artifacts.log"; exit 1; }
node "$PKG/scripts/licenses.mjs" "$STAGE/hep/npm/$PLATFORM"
"${NAPI[@]}" pre-publish --cwd "$STAGE/hep" -c napi-host.json -t npm --no-gh-release >"$WORK/pre-publish.log" 2>&1 ||
	{ cat "$WORK/pre-publish.log"; exit 1; }
(cd "$STAGE/hep" && node -e "
  const fs = require('node:fs');
  const { parseTriple } = require('$PKG/node_modules/@napi-rs/cli');
  const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
  const host = pkg.optionalDependencies ?? {};
  if (JSON.stringify(host) !== JSON.stringify({ 'hep-$PLATFORM': pkg.version })) throw new Error('napi pre-publish wrote ' + JSON.stringify(host));
  pkg.optionalDependencies = Object.fromEntries(pkg.napi.targets.map((t) => ['hep-' + parseTriple(t).platformArchABI, pkg.version]));
  fs.writeFileSync('package.json', JSON.stringify(pkg, null, 2) + '\n');")
# The tarball's files as packed (its LICENSE made by prepack): no script to run again.
(cd "$STAGE/hep" && npm publish --ignore-scripts --loglevel=error >/dev/null)
say "published hep and hep-$PLATFORM"

# ---- 4. install and use, as a user ----
cd "$PROJECT"
echo '{"name": "release-check-consumer", "version": "1.0.0", "private": true}' >package.json
npm install hep --no-audit --no-fund --loglevel=error >/dev/null
node - "$PLATFORM" "$PKG/package.json" <<'EOF'
const platform = process.argv[2];
const targets = require(process.argv[3]).napi.targets;
const lock = require('./package-lock.json').packages;
const main = lock['node_modules/hep'];
const native = lock[`node_modules/hep-${platform}`];
if (!main || !native) throw new Error(`not installed: ${JSON.stringify(Object.keys(lock))}`);
if (native.optional !== true || main.optionalDependencies?.[`hep-${platform}`] !== main.version) {
  throw new Error(`hep-${platform} did not come in as hep's optional dependency: ${JSON.stringify({ main, native })}`);
}
if (Object.keys(main.optionalDependencies).length !== targets.length) {
  throw new Error(`hep's optionalDependencies are not one per target: ${JSON.stringify(main.optionalDependencies)}`);
}
if (!native.resolved?.startsWith('http://127.0.0.1:')) throw new Error(`hep-${platform} came from ${native.resolved}`);
EOF
say "npm install hep: hep-$PLATFORM came in through its optionalDependencies"

cat >supervise.cjs <<'EOF'
// A supervisor through require('hep'): the simulator's run, mirrored; exit 0 when ok.
const { spawn } = require('hep');

(async () => {
  const run = spawn(process.env.HEP_BIN, ['simulate', '--scenario', 'tools', '--speed', '0']);
  const types = new Set();
  for await (const frame of run) types.add(frame.type);
  const result = await run.result;
  console.log(`require: verdict ${result.verdict}, ${types.size} frame types, tool calls ${result.toolCalls.length}`);
  const addon = Object.keys(require.cache).find((f) => f.endsWith('.node'));
  if (!addon.includes(`node_modules/hep-`)) throw new Error(`the addon came from ${addon}`);
  process.exitCode = result.verdict === 'ok' && result.toolCalls.length > 0 ? 0 : 1;
})();
EOF
cp "$ROOT/examples/node/first.mjs" first.mjs
HEP_BIN=$HEP_BIN node supervise.cjs
HEP_BIN=$HEP_BIN node first.mjs | tail -n 1
say "done in $((SECONDS - STARTED)) s"
say ok
