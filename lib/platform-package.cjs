'use strict';
// The name of the npm package that carries this platform's binaries (the
// addon, and the agent CLI's native client where there is one): the napi
// target triple's platform, arch and, on Linux, libc.
function platformPackage() {
    const { platform, arch } = process;
    let abi = '';
    if (platform === 'linux') {
        const glibc = process.report && typeof process.report.getReport === 'function' && process.report.getReport().header.glibcVersionRuntime;
        abi = glibc ? '-gnu' : '-musl';
    } else if (platform === 'win32') {
        abi = '-msvc';
    }
    return `@agbrowse/web-ai-snapshot-${platform}-${arch}${abi}`;
}

module.exports = { platformPackage };
