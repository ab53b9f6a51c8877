// Runs once, in vitest's main process, before any worker starts: checks the fixtures against a throwaway
// server, so a broken manifest fails the run once (the error names the file and document) instead of once
// per test file, and hands the fixture folder to the workers through provide()/inject().
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startServer } from 'orch';

declare module 'vitest' {
  export interface ProvidedContext {
    fixtures: string;
  }
}

export default async function setup(project: TestProject): Promise<void> {
  const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
  const server = await startServer({ controllers: [] });
  try {
    await server.apply(fixtures);
  } finally {
    await server.close();
  }
  project.provide('fixtures', fixtures);
}
