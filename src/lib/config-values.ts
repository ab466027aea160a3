import { existsSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** What `loadConfig` (src/config.ts) checks values against and derives defaults from, apart from the reading. */

/** `web/dist` of this installation: beside the nearest package.json above this file (src/ or dist/src/). */
export function defaultConsoleDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, 'web', 'dist');
}

/** An IP address, or a CIDR range whose prefix fits the address family. */
export function isAddressOrRange(value: string): boolean {
  const [addr, bits, ...rest] = value.split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || rest.length > 0) return false;
  if (bits === undefined) return true;
  const n = Number(bits);
  return /^\d{1,3}$/.test(bits) && n <= (family === 4 ? 32 : 128);
}
