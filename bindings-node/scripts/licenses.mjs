// `npm pack` / `npm publish` (prepack), and the release for each platform package: the
// repository's two license texts as one LICENSE file in the package directory given
// (default: this package). npm packs a file named LICENSE whatever a package's `files` say;
// LICENSE-MIT and LICENSE-APACHE it would leave out of the platform packages.

import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const PREAMBLE =
  'hep is licensed under the MIT license or the Apache License, Version 2.0, at your option\n' +
  '(SPDX: MIT OR Apache-2.0). Both texts follow.\n';

const texts = ['LICENSE-MIT', 'LICENSE-APACHE'].map((file) => readFileSync(join(REPO, file), 'utf8').trimEnd());
const into = resolve(process.argv[2] ?? join(REPO, 'bindings-node'));
writeFileSync(join(into, 'LICENSE'), [PREAMBLE.trimEnd(), ...texts].join('\n\n\n') + '\n');
