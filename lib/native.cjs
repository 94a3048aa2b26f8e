'use strict';
// The compiled addon, loaded once. A missing binary is a WebAiError that names
// the platform package npm should have installed (its fields are written
// here: without the addon there is no table to read them from; a test checks
// them against it).
const { platformPackage } = require('./platform-package.cjs');

let native;
try {
    native = require('../native.cjs');
} catch (err) {
    const { WebAiError } = require('./errors.cjs');
    const pkg = platformPackage();
    throw new WebAiError({
        errorCode: 'addon.binary-missing',
        stage: 'addon-load',
        retryHint: 'install-platform-package',
        message: `@agbrowse/web-ai-snapshot: no native addon for ${process.platform}-${process.arch} could be loaded; ` +
            `npm should have installed ${pkg} (an optional dependency: reinstall without --no-optional / --omit=optional), ` +
            `or build it from a clone with \`npm run build\`. (${err && err.message ? err.message.split('\n')[0] : err})`,
        evidence: { expectedPackage: pkg, platform: process.platform, arch: process.arch },
        cause: err,
    });
}
module.exports = native;
