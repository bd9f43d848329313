/**
 * A JSON object cut to a size the records can hold: while it is over `maxBytes`, its largest
 * field is replaced by a note saying where the whole object is. Small objects come back as they are.
 */
export function boundedJson(obj: Record<string, unknown>, maxBytes: number, whereWhole: string): Record<string, unknown> {
  if (JSON.stringify(obj).length <= maxBytes) return obj;
  const out: Record<string, unknown> = { ...obj };
  const bySize = Object.entries(out)
    .map(([key, value]) => ({ key, size: JSON.stringify(value)?.length ?? 0 }))
    .sort((a, b) => b.size - a.size);
  for (const { key, size } of bySize) {
    out[key] = `omitted here (${size} bytes of JSON): ${whereWhole}`;
    if (JSON.stringify(out).length <= maxBytes) break;
  }
  return out;
}
