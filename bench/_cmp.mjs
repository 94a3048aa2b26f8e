import { launchChromium, openFile } from '/work/main/scripts/browser.mjs';
import { buildWebAiSnapshot } from '/work/main/lib/index.mjs';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
const browser = await launchChromium();
for (const f of process.argv.slice(2)) {
  const page = await openFile(browser, f);
  const pw = await page.ariaSnapshot({ mode: 'ai' });
  const s = await buildWebAiSnapshot(page, {});
  const t0 = performance.now(); const s2 = await buildWebAiSnapshot(page, {}); const t1 = performance.now();
  const sess = await page.context().newCDPSession(page);
  const t2 = performance.now(); const raw = await sess.send('Accessibility.getFullAXTree', {}); const t3 = performance.now();
  const t4 = performance.now(); await page.ariaSnapshot({ mode: 'ai' }); const t5 = performance.now();
  console.log(f.split('/').pop(), 'ours', encode(s.text).length, 'pw', encode(pw).length, 'ratio', (encode(s.text).length/encode(pw).length).toFixed(2), 'refs', s.stats.interactiveCount, 'ms ours', (t1-t0).toFixed(0), 'floor', (t3-t2).toFixed(0), 'pw', (t5-t4).toFixed(0), 'axnodes', raw.nodes.length, 'notes', s.notes);
  await page.close();
}
await browser.close();
