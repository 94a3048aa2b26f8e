// A node:test reporter for scripts/test-group.mjs: each file's top-level
// tests counted, and the seconds they took, as one JSON object keyed by the
// file's absolute path when the run ends (a group runs several files in one
// process; scripts/test.mjs prints the files' table from it and keeps their
// times to plan the next run).
export default async function* filesReporter(source) {
    const files = {};
    for await (const event of source) {
        if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
        const file = event.data.file;
        const f = (files[file] ??= { tests: 0, pass: 0, fail: 0, skipped: 0, seconds: 0 });
        f.tests += 1;
        if (event.data.skip !== undefined) f.skipped += 1;
        else if (event.type === 'test:pass') f.pass += 1;
        else f.fail += 1;
        f.seconds += (event.data.details?.duration_ms ?? 0) / 1000;
    }
    yield `${JSON.stringify(files)}\n`;
}
