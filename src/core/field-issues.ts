/**
 * Zod issues as field issues (path, message, type, input, ctx): the one translation behind every
 * 422, whether the schema ran in a route (request validation) or in a service (a model's params).
 */
import type { z } from "zod";
import type { FieldIssue } from "./errors";

/** `input` is what was validated (to report the offending values); `prefix` is where it sits. */
export function fieldIssuesFromZod(error: z.ZodError, input: unknown, prefix: (string | number)[] = []): FieldIssue[] {
  return error.issues.flatMap((issue): FieldIssue[] => {
    // As pydantic does: each unknown key is its own item, at the key, with its value.
    if (issue.code === "unrecognized_keys") {
      return issue.keys.map((key) => ({
        path: [...prefix, ...issue.path.map((p) => (typeof p === "number" ? p : String(p))), key],
        message: "Extra inputs are not permitted",
        type: "extra_forbidden",
        input: valueAt(input, [...(issue.path as PropertyKey[]), key]) ?? null,
        ctx: {},
      }));
    }
    const value = valueAt(input, issue.path as PropertyKey[]);
    return [
      {
        path: [...prefix, ...issue.path.map((p) => (typeof p === "number" ? p : String(p)))],
        message: issue.code === "invalid_type" && value === undefined ? "Field required" : issue.message,
        type: typeFor(issue, value),
        input: value === undefined ? null : value,
        ctx: contextFor(issue),
      },
    ];
  });
}

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let cur: unknown = input;
  for (const key of path) {
    if (cur === null || typeof cur !== "object") return undefined;
    cur = (cur as Record<PropertyKey, unknown>)[key];
  }
  return cur;
}

function typeFor(issue: z.core.$ZodIssue, value: unknown): string {
  switch (issue.code) {
    case "invalid_type":
      return value === undefined ? "missing" : `${issue.expected}_type`;
    case "too_small":
      return issue.origin === "string" || issue.origin === "array" ? "too_short" : "greater_than_equal";
    case "too_big":
      return issue.origin === "string" || issue.origin === "array" ? "too_long" : "less_than_equal";
    case "invalid_value":
      return "enum";
    case "invalid_format":
      return `${issue.format}_parsing`;
    default:
      return "value_error";
  }
}

function contextFor(issue: z.core.$ZodIssue): Record<string, unknown> {
  switch (issue.code) {
    case "too_small":
      return { min: Number(issue.minimum) };
    case "too_big":
      return { max: Number(issue.maximum) };
    case "invalid_value":
      return { expected: issue.values.map(String).join(", ") };
    default:
      return {};
  }
}
