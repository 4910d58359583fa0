import { join } from 'node:path';

import { packageRoot } from '../src/paths.js';

export const fixture = (name: string): string => join(packageRoot, 'fixtures', name);
