/**
 * Whether a JSON text nests arrays and objects deeper than `maxDepth`, found by one scan of the
 * text (brackets inside strings do not count) before anything parses or walks it: the parser
 * itself copes with deep input, but every recursive walk after it (validation, JSON.stringify of
 * an error body) would overflow the stack.
 */
export function jsonDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c)
        i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > maxDepth) return true;
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return false;
}
