#!/usr/bin/env bash
# Proves locally what the release workflow claims for the linux-x64-gnu
# binary: built for glibc 2.17 (here with cargo-zigbuild; the workflow uses
# napi-rs's glibc 2.17 cross toolchain), it needs no newer glibc symbol, is
# stripped, and loads and works in Node. Installs zig (PyPI: ziglang) and
# cargo-zigbuild (crates.io) when they are missing.
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${PROVE_GLIBC_TARGET_DIR:-target/glibc-2.17}"

python3 -m ziglang version >/dev/null 2>&1 || python3 -m pip install -q ziglang
command -v cargo-zigbuild >/dev/null 2>&1 || cargo install -q --locked cargo-zigbuild

CARGO_TARGET_DIR="$target_dir" cargo zigbuild -q --release --features napi --lib --target x86_64-unknown-linux-gnu.2.17
so="$target_dir/x86_64-unknown-linux-gnu/release/libweb_ai_snapshot.so"
node scripts/check-binary.mjs "$so" --max-glibc 2.17
cp "$so" "$target_dir/web-ai-snapshot.linux-x64-gnu.node"
node -e "
const n = require(process.argv[1]);
const s = JSON.parse(n.snapshotFromTree('legacy', JSON.stringify({ legacyNodes: [{ role: 'WebArea', name: 'T', children: [1] }, { role: 'button', name: 'Go', children: [] }] }), {}, undefined));
if (!/button \"Go\" \[ref=@e1\]/.test(s.text)) { console.error(s.text); process.exit(1); }
console.log('the glibc 2.17 build loads and snapshots');
" "$(realpath "$target_dir/web-ai-snapshot.linux-x64-gnu.node")"
