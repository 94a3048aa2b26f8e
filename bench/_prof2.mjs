import { launchChromium, openFile } from '../scripts/browser.mjs';
import ax from '../lib/ax-snapshot.cjs';
const browser = await launchChromium();
const page = await openFile(browser, process.argv[2]);
const s = await page.context().newCDPSession(page);
await s.send('Accessibility.getFullAXTree', {});
for (let k = 0; k < 4; k++) {
  const marks = {};
  const t0 = performance.now();
  const tm = {}; const snap = await ax.captureOverCdp(async (m, p) => { const r = await s.send(m, p); marks[m] = performance.now() - t0; return r; }, '{}', tm); console.log(tm);
  const t1 = performance.now() - t0;
  console.log(JSON.stringify(marks), 'end', t1.toFixed(1), 'after AX', (t1 - marks['Accessibility.getFullAXTree']).toFixed(1));
}
await browser.close();
