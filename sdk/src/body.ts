/**
 * Request bodies that report the bytes sent as they go, for progress bars: a Blob, or a
 * multipart form of string fields and one file. Each has an exact length, which the signed PUT
 * needs (the length is part of the signature) and which lets the server refuse a large body early.
 */
export type OnBytes = (sent: number, total: number) => void;

export interface CountedBody {
  /** A new stream each call (one per attempt). */
  stream(): ReadableStream<Uint8Array>;
  length: number;
  contentType: string;
}

/** A Blob sent as it is. */
export function blobBody(blob: Blob, contentType: string, onBytes?: OnBytes): CountedBody {
  return { stream: () => counted([blob], blob.size, onBytes), length: blob.size, contentType };
}

/** multipart/form-data of `fields` then the file under `fileField`. */
export function multipartBody(fields: Record<string, string>, fileField: string, file: Blob, filename: string, onBytes?: OnBytes): CountedBody {
  const boundary = `----tabular${crypto.randomUUID().replace(/-/g, "")}`;
  const enc = new TextEncoder();
  const quote = (s: string) => s.replace(/"/g, "%22").replace(/\r|\n/g, " ");
  const head: Uint8Array[] = Object.entries(fields).map(([k, v]) =>
    enc.encode(`--${boundary}\r\nContent-Disposition: form-data; name="${quote(k)}"\r\n\r\n${v}\r\n`),
  );
  head.push(
    enc.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="${quote(fileField)}"; filename="${quote(filename)}"\r\nContent-Type: ${file.type || "application/octet-stream"}\r\n\r\n`,
    ),
  );
  const tail = enc.encode(`\r\n--${boundary}--\r\n`);
  const parts: (Uint8Array | Blob)[] = [...head, file, tail];
  const length = head.reduce((n, p) => n + p.byteLength, 0) + file.size + tail.byteLength;
  return { stream: () => counted(parts, length, onBytes), length, contentType: `multipart/form-data; boundary=${boundary}` };
}

function counted(parts: (Uint8Array | Blob)[], total: number, onBytes?: OnBytes): ReadableStream<Uint8Array> {
  let sent = 0;
  let i = 0;
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        if (reader) {
          const { done, value } = await reader.read();
          if (!done) {
            sent += value.byteLength;
            controller.enqueue(value);
            onBytes?.(sent, total);
            return;
          }
          reader = null;
        }
        const part = parts[i++];
        if (part === undefined) {
          controller.close();
          return;
        }
        if (part instanceof Uint8Array) {
          sent += part.byteLength;
          controller.enqueue(part);
          onBytes?.(sent, total);
          return;
        }
        reader = part.stream().getReader();
      }
    },
    cancel() {
      return reader?.cancel();
    },
  });
}
