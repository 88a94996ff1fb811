/** The package version, read from package.json above this file (src/ or dist/src/). */
import { readFileSync } from 'node:fs';
import path from 'node:path';

export const VERSION: string = (() => {
  for (let dir = __dirname; path.dirname(dir) !== dir; dir = path.dirname(dir)) {
    try {
      return JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version as string;
    } catch {
      // keep looking upward
    }
  }
  return '0.0.0';
})();
