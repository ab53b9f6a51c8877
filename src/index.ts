/** The package entry point: `import { startServer } from "orch"` runs the API server in-process. */
export { startServer, type ServerOptions, type RunningServer } from './server/index.js';
