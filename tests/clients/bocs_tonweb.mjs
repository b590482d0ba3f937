// Every BoC the server hands out, read by tonweb's own BoC parser (strict:
// it rejects stored hashes and checks completion tags) and by @ton/core's,
// which must agree on each ordinary root's hash.
// Usage: node bocs_tonweb.mjs <base url> <requests.json>
// requests.json: [{kind, path, min}] — GET base+path; every string in the
// answer that is a BoC (te6cc…) counts for `kind`; each kind needs `min`.
import fs from 'node:fs';
import TonWeb from 'tonweb';
import { Cell } from '@ton/core';

const [, , base, listPath] = process.argv;
const requests = JSON.parse(fs.readFileSync(listPath, 'utf8'));
const counts = {};
const failures = [];

function bocsIn(value, out) {
  if (typeof value === 'string') {
    if (value.startsWith('te6cc')) out.push(value);
  } else if (value && typeof value === 'object') {
    for (const v of Object.values(value)) bocsIn(v, out);
  }
  return out;
}

// tonweb prints the offending bytes before it throws: keep the log short.
const log = console.log;
for (const { kind, path } of requests) {
  const res = await fetch(base + path);
  const body = await res.json();
  if (!res.ok) {
    failures.push(`${kind}: ${path} answered ${res.status} ${JSON.stringify(body).slice(0, 200)}`);
    continue;
  }
  for (const boc of bocsIn(body, [])) {
    const bytes = Buffer.from(boc, 'base64');
    try {
      console.log = () => {};
      const cell = TonWeb.boc.Cell.oneFromBoc(TonWeb.utils.bytesToHex(bytes));
      const tw = TonWeb.utils.bytesToHex(await cell.hash());
      console.log = log;
      const core = Cell.fromBoc(bytes)[0].hash().toString('hex');
      // tonweb hashes exotic cells (a library cell, say) as ordinary ones:
      // compare hashes of ordinary roots only; parsing must succeed anyway.
      if (!cell.isExotic && tw !== core) failures.push(`${kind}: ${path}: tonweb hash ${tw} != @ton/core ${core}`);
      counts[kind] = (counts[kind] ?? 0) + 1;
    } catch (e) {
      console.log = log;
      failures.push(`${kind}: ${path}: ${String(e).slice(0, 200)}`);
    }
  }
}
for (const { kind, min } of requests) {
  if ((counts[kind] ?? 0) < min) failures.push(`${kind}: ${counts[kind] ?? 0} BoCs read, want at least ${min}`);
}
console.log(JSON.stringify(counts));
if (failures.length) {
  console.error([...new Set(failures)].join('\n'));
  process.exit(1);
}
