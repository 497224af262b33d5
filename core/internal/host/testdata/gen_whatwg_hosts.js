// Regenerates whatwg_hosts.jsonl with Node's WHATWG URL parser:
//   node gen_whatwg_hosts.js > whatwg_hosts.jsonl
// Deterministic (fixed seed). Only inputs without URL delimiters are kept.
// Generates host inputs and records what Node's WHATWG URL parser makes of them.
let seed = 20260101;
function rnd() { seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff; return seed / 0x80000000; }
function ri(n) { return Math.floor(rnd() * n); }
function pick(a) { return a[ri(a.length)]; }
const fw = s => s.replace(/[!-~]/g, c => String.fromCodePoint(c.codePointAt(0) - 0x21 + 0xFF01));
const pct = s => s.replace(/./gu, c => (c.length === 1 && rnd() < 0.3) ? '%' + c.charCodeAt(0).toString(16).padStart(2, '0').replace(/./g, x => rnd() < 0.5 ? x.toUpperCase() : x) : c);
function num() {
  const r = rnd();
  let v = r < 0.4 ? ri(256) : r < 0.6 ? ri(65536) : r < 0.8 ? Math.floor(rnd() * 4294967296) : r < 0.9 ? 4294967296 + ri(1000) : ri(300);
  const k = ri(6);
  let s;
  if (k === 0) s = '0' + '0'.repeat(ri(3)) + v.toString(8);
  else if (k === 1) s = pick(['0x', '0X']) + '0'.repeat(ri(3)) + v.toString(16);
  else if (k === 2) s = pick(['0x', '0X']) + v.toString(16).toUpperCase();
  else s = v.toString(10);
  if (rnd() < 0.05) s = s + pick(['g', '8', '9', 'e', '']);
  if (rnd() < 0.03) s = '';
  if (rnd() < 0.03) s = pick(['0x', '0', '00', '09', '0x0']);
  return s;
}
function ipv4() {
  const n = 1 + ri(rnd() < 0.9 ? 4 : 5);
  const parts = []; for (let i = 0; i < n; i++) parts.push(num());
  const sep = rnd() < 0.7 ? '.' : pick(['.', '。', '．', '｡', '%2e', '%2E']);
  let s = parts.join(sep);
  if (rnd() < 0.15) s += pick(['.', '..', '。']);
  if (rnd() < 0.1) s = fw(s);
  if (rnd() < 0.1) s = pct(s);
  if (rnd() < 0.1) s = pick(['a.', 'x.y.', '1.2.3.4.5.', '']) + s;
  if (rnd() < 0.05) s = s + pick(['.a', '.com', 'x']);
  return s;
}
function hex16() { const v = ri(65536).toString(16); return rnd() < 0.3 ? v.toUpperCase() : v; }
function ipv6() {
  let n = ri(9), pieces = []; for (let i = 0; i < n; i++) pieces.push(hex16());
  if (rnd() < 0.3 && n <= 6) { pieces.push([ri(256), ri(256), ri(256), ri(256)].join('.')); }
  if (rnd() < 0.3) { pieces = ['', '', 'ffff', [ri(256), ri(256), ri(256), ri(256)].join('.')]; }
  let s = pieces.join(':');
  if (rnd() < 0.6) { const at = ri(pieces.length + 1); const p = pieces.slice(); p.splice(at, 0, ''); s = p.join(':'); if (at === 0) s = ':' + s; if (at === pieces.length) s += ':'; }
  if (rnd() < 0.05) s += pick(['%25eth0', '%eth0', ':', 'x', '.1', '::']);
  if (rnd() < 0.05) s = pick(['64:ff9b::', '2002:', '::', '::1:', 'fe80::']) + s;
  return '[' + s + ']';
}
const uni = ['ü', 'ß', 'ẞ', 'İ', 'é', '例', 'え', 'я', 'ſ', 'K', 'ﬁ', '①', '𝟏', '¹', '\u00AD', '\u200B', '\u200D', 'ｌ', 'Ａ', '＿', '\uFE0F', 'ı', 'Σ', 'ς', 'ª', 'ℓ', '٣', '\u0301', 'ー', '·'];
function label() {
  const n = ri(10);
  let s = '';
  for (let i = 0; i < n; i++) {
    const r = rnd();
    s += r < 0.6 ? pick('abcdefghijklmnopqrstuvwxyzABCXYZ0123456789-_'.split('')) : r < 0.8 ? pick(uni) : pick(['0x', '7f', '1', '%41', '%2e', 'xn--']);
  }
  return s;
}
function name() {
  const n = 1 + ri(4); const l = []; for (let i = 0; i < n; i++) l.push(label());
  if (rnd() < 0.3) l.push(pick(['com', 'local', 'localhost', 'internal', 'lan', 'home.arpa', '1', '0x1', '09']));
  let s = l.join(rnd() < 0.8 ? '.' : pick(['。', '．', '｡']));
  if (rnd() < 0.1) s += '.';
  if (rnd() < 0.1) s = pct(s);
  return s;
}
const fixed = ['127.1', '0x7f.0.0.1', '2130706433', '0177.0.0.1', '%31%32%37.0.0.1', '127。0。0。1', '１２７．０．０．１', 'LOCALHOST.', 'localhost', '[::ffff:127.0.0.1]', '[::ffff:7f00:1]', '[::127.0.0.1]', '[64:ff9b::7f00:1]', '[2002:7f00:1::]', '0', '0x', '4294967295', '4294967296', '1.2.3.4.', '1.2.3.4..', 'a..b', '.a', 'münchen.de', 'FAẞ.de', 'İstanbul.tr', 'loc\u00ADalhost', 'localhoſt', '127.0.0.𝟏', '①.com', '0x7f.1', '[::1%25eth0]', '[fe80::1]', '[::]', '[]', '[::1', 'xn--mnchen-3ya.de', '1.256', '1.2.3.09', 'a.0x', 'example.0x1f'];
const out = new Set(fixed);
while (out.size < 3000) { const r = rnd(); out.add(r < 0.45 ? ipv4() : r < 0.7 ? ipv6() : name()); }
const lines = [];
for (const s of out) {
  if (/[\/?#@\\\s\x00-\x1f\x7f]/.test(s)) continue;
  if (!s.startsWith('[') && s.includes(':')) continue;
  let h = null;
  try { h = new URL('http://' + s + '/').hostname; } catch (e) { h = null; }
  lines.push(JSON.stringify({ in: s, whatwg: h }));
}
console.log(JSON.stringify({ generator: 'gen_whatwg_hosts.js', node: process.version, note: 'null means the WHATWG URL parser rejects the host' }));
console.log(lines.join('\n'));
