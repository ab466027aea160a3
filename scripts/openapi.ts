// The OpenAPI document of the API, built from the app itself with no database and no network.
//   npm run openapi                      prints it (JSON) on stdout
//   npm run openapi -- --out FILE        writes it to FILE
//   npm run openapi:check                writes it to dist/openapi.json and validates it with two
//                                        independent validators: @apidevtools/swagger-parser and
//                                        Redocly CLI (redocly.yaml, .redocly.lint-ignore.yaml)
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { openApiDocument } from '../src/openapi-document.js';

const root = path.dirname(path.dirname(new URL(import.meta.url).pathname));
const args = process.argv.slice(2);
const outIndex = args.indexOf('--out');
const check = args.includes('--check');

const document = await openApiDocument();
const text = `${JSON.stringify(document, null, 2)}\n`;

if (outIndex >= 0) {
  const file = args[outIndex + 1];
  if (!file) throw new Error('--out needs a file name');
  writeFileSync(file, text);
} else if (!check) {
  process.stdout.write(text);
}

if (check) {
  // A fixed place (dist/ is build output, not committed): .redocly.lint-ignore.yaml names it.
  const file = path.join(root, 'dist', 'openapi.json');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  let failed = false;
  try {
    // validate() dereferences the document in place: it gets a copy.
    await SwaggerParser.validate(structuredClone(document) as never);
    console.log('swagger-parser: the document is valid OpenAPI');
  } catch (err) {
    failed = true;
    console.error(`swagger-parser: ${err instanceof Error ? err.message : String(err)}`);
  }
  // Redocly's own settings are in redocly.yaml (telemetry off there too); the variables keep it
  // from sending usage data or looking for a newer version.
  const redocly = spawnSync(
    process.execPath,
    [
      path.join(root, 'node_modules/@redocly/cli/bin/cli.js'),
      'lint',
      path.relative(root, file),
      '--config',
      'redocly.yaml',
      '--format',
      'codeframe',
    ],
    {
      cwd: root,
      stdio: 'inherit',
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        REDOCLY_SUPPRESS_NOTIFICATIONS: 'true',
      },
    },
  );
  if (redocly.status !== 0) failed = true;
  if (failed) {
    console.error('The OpenAPI document is not valid (see above).');
    process.exit(1);
  }
}
