// Runs once, in jest's main process, before any worker starts: checks the fixtures against a throwaway
// server, so a broken manifest fails the run once (the error names the file and document) instead of once
// per test file. Workers inherit process.env, which is how they learn the fixture folder.
// jest loads this file outside its module system (no transform, no resolver), so the package's TypeScript
// entry is imported through tsx, one of the package's dependencies.
import { fileURLToPath } from 'node:url';
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  const { startServer } = await tsImport('orch', import.meta.url);
  const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
  const server = await startServer({ controllers: [] });
  try {
    await server.apply(fixtures);
  } finally {
    await server.close();
  }
  process.env.ORCH_FIXTURES = fixtures;
}
