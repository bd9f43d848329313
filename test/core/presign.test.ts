/**
 * SigV4 presigning against AWS's published example (S3 "Authenticating Requests: Using Query
 * Parameters"), the shape of the PUT URL the service hands out for R2, and the trainer's GET and
 * UploadPart URLs checked by an independent SigV4 computation (itself checked on AWS's example).
 */
import { createHash, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { objectUrl, presign, presignGet, presignPut, presignUploadPart, type S3Config } from "../../src/storage/presign";

const AWS_EXAMPLE: S3Config = {
  endpoint: "https://examplebucket.s3.amazonaws.com",
  bucket: "",
  accessKeyId: "AKIAIOSFODNN7EXAMPLE",
  secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
  region: "us-east-1",
};

describe("SigV4 presigned URLs", () => {
  it("reproduce AWS's documented example signature", async () => {
    const url = new URL(
      await presign(AWS_EXAMPLE, {
        method: "GET",
        url: "https://examplebucket.s3.amazonaws.com/test.txt",
        headers: {},
        expiresS: 86400,
        datetime: "20130524T000000Z",
      }),
    );
    expect(url.searchParams.get("X-Amz-Credential")).toBe("AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    expect(url.searchParams.get("X-Amz-Signature")).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
    // and so does the independent SigV4 computation the trainer's URLs are checked against below
    expect(sigV4(url, "GET", {}, AWS_EXAMPLE.secretAccessKey)).toBe("aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404");
  });

  it("a different secret, time or key gives a different signature", async () => {
    const base = {
      method: "GET",
      url: "https://examplebucket.s3.amazonaws.com/test.txt",
      headers: {},
      expiresS: 86400,
      datetime: "20130524T000000Z",
    };
    const sig = async (cfg: S3Config, req = base) => new URL(await presign(cfg, req)).searchParams.get("X-Amz-Signature");
    const reference = await sig(AWS_EXAMPLE);
    expect(await sig({ ...AWS_EXAMPLE, secretAccessKey: "another" })).not.toBe(reference);
    expect(await sig(AWS_EXAMPLE, { ...base, datetime: "20130524T000001Z" })).not.toBe(reference);
    expect(await sig(AWS_EXAMPLE, { ...base, url: base.url.replace("test", "tost") })).not.toBe(reference);
  });

  it("bind content type, length and a one-hour expiry into an R2 PUT URL (path style)", async () => {
    const r2: S3Config = { endpoint: "https://acct.r2.cloudflarestorage.com/", bucket: "tabular-ml-data", accessKeyId: "k", secretAccessKey: "s" };
    const url = new URL(await presignPut(r2, "orgs/o1/datasets/d1/file name.csv", { contentType: "text/csv", bytes: 1234, expiresS: 3600 }));
    expect(url.origin + url.pathname).toBe("https://acct.r2.cloudflarestorage.com/tabular-ml-data/orgs/o1/datasets/d1/file%20name.csv");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;content-type;host");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^k\/\d{8}\/auto\/s3\/aws4_request$/);
    expect(objectUrl(r2, "a/b")).toBe("https://acct.r2.cloudflarestorage.com/tabular-ml-data/a/b");
  });
});

/** RFC 3986 encoding, as SigV4's canonical query wants it. */
const rfc3986 = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The signature SigV4 gives a presigned `url` sent with `headers` (lower-case names; host comes
 * from the URL), computed here from the specification, not by aws4fetch.
 */
function sigV4(url: URL, method: string, headers: Record<string, string>, secret: string): string {
  const q = url.searchParams;
  const query = [...q.entries()]
    .filter(([k]) => k !== "X-Amz-Signature")
    .map(([k, v]) => `${rfc3986(k)}=${rfc3986(v)}`)
    .sort()
    .join("&");
  const all: Record<string, string> = { host: url.host, ...headers };
  const signed = (q.get("X-Amz-SignedHeaders") ?? "").split(";");
  const canonical = [method, url.pathname, query, ...signed.map((h) => `${h}:${all[h]}`), "", signed.join(";"), "UNSIGNED-PAYLOAD"].join("\n");
  const [, date, region, service] = (q.get("X-Amz-Credential") ?? "").split("/");
  const hex = (d: string) => createHash("sha256").update(d).digest("hex");
  const toSign = ["AWS4-HMAC-SHA256", q.get("X-Amz-Date"), `${date}/${region}/${service}/aws4_request`, hex(canonical)].join("\n");
  const hmac = (key: string | Buffer, d: string) => createHmac("sha256", key).update(d).digest();
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), "aws4_request");
  return createHmac("sha256", key).update(toSign).digest("hex");
}

describe("the trainer's presigned R2 URLs", () => {
  const r2: S3Config = { endpoint: "https://acct.r2.cloudflarestorage.com", bucket: "tabular-ml-data", accessKeyId: "k", secretAccessKey: "s" };

  it("a GET of an object signs the host only (the trainer may add a Range), for one hour", async () => {
    const url = new URL(await presignGet(r2, "orgs/o1/datasets/d1/versions/v1/frame.bin", 3600));
    expect(url.origin + url.pathname).toBe("https://acct.r2.cloudflarestorage.com/tabular-ml-data/orgs/o1/datasets/d1/versions/v1/frame.bin");
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("host");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    expect(url.searchParams.get("X-Amz-Credential")).toMatch(/^k\/\d{8}\/auto\/s3\/aws4_request$/);
    expect(url.searchParams.get("X-Amz-Signature")).toBe(sigV4(url, "GET", {}, "s"));
    expect(sigV4(url, "PUT", {}, "s")).not.toBe(url.searchParams.get("X-Amz-Signature"));
  });

  it("an UploadPart signs its part number, its upload id and its exact length", async () => {
    const uploadId = "AAb+c/d=e f"; // characters that need encoding in the canonical query
    const url = new URL(await presignUploadPart(r2, "orgs/o1/frame.bin", { uploadId, partNumber: 3, bytes: 67108864, expiresS: 3600 }));
    expect(url.origin + url.pathname).toBe("https://acct.r2.cloudflarestorage.com/tabular-ml-data/orgs/o1/frame.bin");
    expect(url.searchParams.get("partNumber")).toBe("3");
    expect(url.searchParams.get("uploadId")).toBe(uploadId);
    expect(url.searchParams.get("X-Amz-SignedHeaders")).toBe("content-length;host");
    expect(url.searchParams.get("X-Amz-Expires")).toBe("3600");
    const signature = url.searchParams.get("X-Amz-Signature");
    expect(sigV4(url, "PUT", { "content-length": "67108864" }, "s")).toBe(signature);
    // another length, part or upload is another request: the signature no longer matches
    expect(sigV4(url, "PUT", { "content-length": "67108863" }, "s")).not.toBe(signature);
    const otherPart = new URL(url);
    otherPart.searchParams.set("partNumber", "4");
    expect(sigV4(otherPart, "PUT", { "content-length": "67108864" }, "s")).not.toBe(signature);
    const otherUpload = new URL(url);
    otherUpload.searchParams.set("uploadId", "another");
    expect(sigV4(otherUpload, "PUT", { "content-length": "67108864" }, "s")).not.toBe(signature);
  });
});
