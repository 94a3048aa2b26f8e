'use strict';
// The compiled addon, loaded once. A missing binary is reported with the fix.
let native;
try {
    native = require('../native.cjs');
} catch (err) {
    const e = new Error(
        `@agbrowse/web-ai-snapshot: the native addon could not be loaded (${err && err.message}). ` +
        'Install the prebuilt package for this platform or build it with `npm run build`.',
    );
    e.cause = err;
    throw e;
}
module.exports = native;
