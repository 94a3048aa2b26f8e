import { launchChromium, openFile } from '../scripts/browser.mjs';
import native from '../native.cjs';
const browser = await launchChromium();
const page = await openFile(browser, process.argv[2]);
const s = await page.context().newCDPSession(page);
await s.send('Accessibility.getFullAXTree', {});
for (let k = 0; k < 3; k++) {
  let t = performance.now();
  const r = await s.send('Accessibility.getFullAXTree', {});
  const tAx = performance.now() - t; t = performance.now();
  const json = JSON.stringify(r);
  const tStr = performance.now() - t; t = performance.now();
  const out = native.snapshotFromTree('cdp', json, '{}', null);
  const tRust = performance.now() - t; t = performance.now();
  JSON.parse(out);
  const tParse = performance.now() - t; t = performance.now();
  const ev = await s.send('Runtime.evaluate', { expression: 'document.body.outerHTML', returnByValue: true });
  const tEv = performance.now() - t; t = performance.now();
  native.domHashOfHtml(ev.result.value, 32768);
  const tHash = performance.now() - t;
  console.log({ tAx, tStr, tRust, tParse, tEv, tHash, htmlLen: ev.result.value.length, jsonLen: json.length });
}
await browser.close();
