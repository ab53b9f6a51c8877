#!/usr/bin/env node
// Runs the TypeScript entry point through tsx (a runtime dependency), so no build step is needed.
import { register } from 'tsx/esm/api';
register();
await import('../src/cmd/apiserver.ts');
