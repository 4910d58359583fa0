// vitest.config.mts
import { defineConfig } from 'vitest/config';
import weft from 'weft/vitest';

export default defineConfig({ plugins: [weft({ maxBound: 2 })] });
