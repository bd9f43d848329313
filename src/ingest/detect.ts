/**
 * Decides from the upload's name, declared type and first bytes whether we can read it, so the
 * API can answer 415 before queueing anything. Bytes win over names: a PNG renamed .csv is
 * refused, a Parquet file without extension is accepted.
 */
export type FileFormat = "csv" | "parquet";

const CSV_EXTENSIONS = new Set(["csv", "tsv", "tab", "txt", "psv"]);
const PARQUET_EXTENSIONS = new Set(["parquet", "pq"]);
const CSV_TYPES = new Set(["text/csv", "text/tab-separated-values", "text/plain", "application/csv", "text/x-csv"]);

/** Leading bytes of formats people upload by mistake (images, archives, office files, PDF). */
const BINARY_SIGNATURES: number[][] = [
  [0x89, 0x50, 0x4e, 0x47], // PNG
  [0xff, 0xd8, 0xff], // JPEG
  [0x47, 0x49, 0x46, 0x38], // GIF
  [0x50, 0x4b, 0x03, 0x04], // zip, and so xlsx/docx/odt
  [0x1f, 0x8b], // gzip
  [0x25, 0x50, 0x44, 0x46], // PDF
  [0xd0, 0xcf, 0x11, 0xe0], // legacy Office (xls)
  [0x28, 0xb5, 0x2f, 0xfd], // zstd
  [0x42, 0x5a, 0x68], // bzip2
  [0x37, 0x7a, 0xbc, 0xaf], // 7z
  [0x7f, 0x45, 0x4c, 0x46], // ELF
];

/**
 * `firstBytes`: the start of the file (a few KB is best, 4 bytes is enough for the magic), or
 * null before the bytes exist (a signed-URL upload being prepared): then name and type decide,
 * and the reader checks the bytes later.
 */
export function detectFormat(
  filename: string | null | undefined,
  contentType: string | null | undefined,
  firstBytes: Uint8Array | null,
): FileFormat | null {
  const bytes = firstBytes ?? new Uint8Array(0);
  if (startsWith(bytes, [0x50, 0x41, 0x52, 0x31])) return "parquet"; // "PAR1"
  if (BINARY_SIGNATURES.some((sig) => startsWith(bytes, sig))) return null;
  const ext = (filename ?? "").toLowerCase().match(/\.([a-z0-9]+)$/)?.[1] ?? "";
  // A .parquet without the marker is still routed to the Parquet reader, whose error says what
  // is wrong with it (truncated, corrupt) more usefully than a bare 415.
  if (PARQUET_EXTENSIONS.has(ext)) return "parquet";
  if (looksBinary(bytes)) return null;
  const type = (contentType ?? "").split(";")[0].trim().toLowerCase();
  if (type === "application/vnd.apache.parquet" || type === "application/x-parquet") return "parquet";
  if (CSV_EXTENSIONS.has(ext) || CSV_TYPES.has(type)) return "csv";
  return null;
}

function startsWith(bytes: Uint8Array, sig: number[]): boolean {
  return bytes.length >= sig.length && sig.every((b, i) => bytes[i] === b);
}

/** Text files have no NUL bytes and few control characters besides tab, CR and LF. */
function looksBinary(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, 4096);
  let control = 0;
  for (let i = 0; i < n; i++) {
    const b = bytes[i];
    if (b === 0) return true;
    if (b < 32 && b !== 9 && b !== 10 && b !== 13 && b !== 12) control++;
  }
  return control > n / 100 + 1;
}
