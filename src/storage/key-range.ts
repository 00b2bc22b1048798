// Key ranges for prefix scans. SQLite compares TEXT with memcmp over UTF-8, so "starts with prefix" is exactly the
// byte range [prefix, successor(prefix)), where successor increments the last byte. Valid UTF-8 never contains 0xFF,
// so the increment never carries. The successor is usually not valid UTF-8, hence it is bound as a Buffer and
// CAST to TEXT in SQL (a bare BLOB would compare greater than every TEXT value).

/** Exclusive upper bound of the keys starting with prefix, as raw UTF-8 bytes. */
export function prefixEnd(prefix: string): Buffer {
  if (prefix === '') return Buffer.from([0xff]);
  const b = Buffer.from(prefix, 'utf8');
  b[b.length - 1] = b[b.length - 1]! + 1;
  return b;
}

/** Byte-order comparison, the order SQLite (and etcd) sort keys in; differs from JS < for astral characters. */
export function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

export interface KeyRange {
  /** lower bound */
  from: string;
  /** true: key > from; false: key >= from */
  exclusive: boolean;
  /** upper bound (exclusive), bytes to CAST AS TEXT */
  end: Buffer;
}

/** The range of keys under prefix, strictly after startAfter when given. */
export function keyRange(prefix: string, startAfter?: string): KeyRange {
  const end = prefixEnd(prefix);
  if (startAfter !== undefined && startAfter !== '' && compareKeys(startAfter, prefix) >= 0) {
    return { from: startAfter, exclusive: true, end };
  }
  return { from: prefix, exclusive: false, end };
}
