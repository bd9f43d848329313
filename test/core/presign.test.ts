/**
 * SigV4 presigning against AWS's published example (S3 "Authenticating Requests: Using Query
 * Parameters"), and the shape of the PUT URL the service hands out for R2.
 */
import { describe, expect, it } from "vitest";
import { objectUrl, presign, presignPut, type S3Config } from "../../src/storage/presign";

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
