import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareKeys, keyRange, prefixEnd } from '../../../src/storage/key-range.js';

describe('key ranges', () => {
  it('bounds a prefix by incrementing its last UTF-8 byte', () => {
    assert.deepEqual(prefixEnd('/a/'), Buffer.from('/a0'));
    assert.deepEqual(prefixEnd('/\u00e9'), Buffer.from([0x2f, 0xc3, 0xaa]));
    assert.deepEqual(prefixEnd(''), Buffer.from([0xff]));
  });

  it('compares in byte order', () => {
    assert.ok(compareKeys('\uffff', '\u{1F600}') < 0); // UTF-16 order would say the opposite
    assert.ok(compareKeys('/a/b', '/a/b/') < 0);
  });

  it('starts after startAfter only when it lies inside the prefix', () => {
    assert.deepEqual(keyRange('/p/', '/p/k'), { from: '/p/k', exclusive: true, end: prefixEnd('/p/') });
    assert.deepEqual(keyRange('/p/', '/a'), { from: '/p/', exclusive: false, end: prefixEnd('/p/') });
    assert.deepEqual(keyRange('/p/'), { from: '/p/', exclusive: false, end: prefixEnd('/p/') });
  });
});
