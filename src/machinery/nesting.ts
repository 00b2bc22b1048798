// How deep a request body nests, measured on its text before any parser recurses into it: a parser (or V8's regexp
// compiler beneath it) that runs out of stack deep inside a hostile body can take the process down, not only throw.

/** Nesting depth of a JSON text, brackets inside strings skipped. */
export function jsonDepth(raw: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i);
    if (c === 0x22) {
      for (i++; i < raw.length && raw.charCodeAt(i) !== 0x22; i++) if (raw.charCodeAt(i) === 0x5c) i++;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return max;
}

/**
 * An upper bound of a YAML text's nesting: the deepest flow nesting (`[`, `{` outside quotes and comments) plus
 * the deepest chain of increasing indentations and `- ` entries of block collections.
 */
export function yamlDepthBound(raw: string): number {
  let flow = 0;
  let maxFlow = 0;
  let maxBlock = 0;
  const indents: number[] = [];
  for (let i = 0; i < raw.length; ) {
    // a line: its indentation and leading sequence dashes first
    let col = 0;
    while (raw.charCodeAt(i) === 0x20) i++, col++;
    let dashes = 0;
    while (raw.charCodeAt(i) === 0x2d && (raw.charCodeAt(i + 1) === 0x20 || raw.charCodeAt(i + 1) === 0x0a)) {
      dashes++;
      i += 2;
      while (raw.charCodeAt(i) === 0x20) i++;
    }
    if (i < raw.length && raw.charCodeAt(i) !== 0x0a && raw.charCodeAt(i) !== 0x23) {
      while (indents.length && indents[indents.length - 1]! >= col) indents.pop();
      indents.push(col);
      if (indents.length + dashes > maxBlock) maxBlock = indents.length + dashes;
    }
    for (; i < raw.length && raw.charCodeAt(i) !== 0x0a; i++) {
      const c = raw.charCodeAt(i);
      if (c === 0x23 && (i === 0 || raw.charCodeAt(i - 1) === 0x20)) {
        while (i < raw.length && raw.charCodeAt(i) !== 0x0a) i++;
        break;
      }
      if (c === 0x22 || c === 0x27) {
        for (i++; i < raw.length && raw.charCodeAt(i) !== c; i++) if (c === 0x22 && raw.charCodeAt(i) === 0x5c) i++;
      } else if (c === 0x5b || c === 0x7b) {
        if (++flow > maxFlow) maxFlow = flow;
      } else if (c === 0x5d || c === 0x7d) flow--;
    }
    i++;
  }
  return maxFlow + maxBlock;
}
