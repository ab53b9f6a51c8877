export { startServer, type ServerOptions, type RunningServer } from './server.js';
