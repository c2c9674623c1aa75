'use strict';
// Loads the native addon built for this platform (`hep.<platform>.node` beside
// package.json) and hands it the factory of its errors.

const path = require('node:path');
const { fromRecord } = require('./errors.js');

/** napi-rs's name for this platform: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, ... */
function platform() {
  const { platform: os, arch } = process;
  if (os === 'linux') {
    const glibc = process.report?.getReport()?.header?.glibcVersionRuntime;
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`;
  }
  if (os === 'win32') return `win32-${arch}-msvc`;
  return `${os}-${arch}`;
}

function load() {
  const file = path.join(__dirname, '..', `hep.${platform()}.node`);
  try {
    return require(file);
  } catch (cause) {
    throw new Error(
      `hep: cannot load its native addon ${file}: this package holds none for ${platform()} ` +
        '(build one with `npx napi build --platform --release` in bindings-node)',
      { cause },
    );
  }
}

/** A failure record of the addon (JSON) to the `HepError` it throws, its stack starting at the caller. */
function hepError(record) {
  const error = fromRecord(JSON.parse(record));
  Error.captureStackTrace(error, hepError);
  return error;
}

const native = load();
native.registerErrorFactory(hepError);

/** The core's constants (versions, exit codes, grace periods, caps, frame type codes). */
const constants = native.constants();

module.exports = { native, constants };
