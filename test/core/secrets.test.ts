import { describe, expect, it } from "vitest";
import { bearerToken, sameSecret } from "../../src/auth/secrets";

describe("bearer tokens", () => {
  it("reads the token of the Bearer scheme, case-insensitively", () => {
    expect(bearerToken("Bearer sk_abc")).toBe("sk_abc");
    expect(bearerToken("bearer sk_abc ")).toBe("sk_abc");
  });

  it.each([undefined, null, "", "Basic dXNlcjpwdw==", "Token sk_abc", "Bearer", "Bearer a b"])("refuses %j", (header) => {
    expect(bearerToken(header)).toBeUndefined();
  });
});

describe("secret comparison", () => {
  it("is true for equal secrets only", async () => {
    expect(await sameSecret("s3cret", "s3cret")).toBe(true);
    expect(await sameSecret("s3cret", "s3cres")).toBe(false);
    expect(await sameSecret("s3cret", "s3cret-longer")).toBe(false);
    expect(await sameSecret("", "s3cret")).toBe(false);
  });
});
