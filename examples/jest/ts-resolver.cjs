// The package's TypeScript sources import each other as './name.js' (what Node's ESM resolution and tsc
// expect); the files on disk are './name.ts'. This resolver maps such a request to the .ts file when only that
// exists, and leaves every other request to jest's own resolution.
const { existsSync } = require('node:fs');
const { resolve } = require('node:path');

module.exports = (request, options) => {
  if (/^\.\.?\//.test(request) && request.endsWith('.js')) {
    const ts = resolve(options.basedir, `${request.slice(0, -3)}.ts`);
    if (!existsSync(resolve(options.basedir, request)) && existsSync(ts)) return ts;
  }
  return options.defaultResolver(request, options);
};
