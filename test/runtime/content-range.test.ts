import { describe, expect, it } from "vitest";
import { contentRangeHeader, parseContentRange } from "../../runtime/common/content-range.ts";

/** The header the controller writes and the client reads are one contract: what one writes, the other reads back. */
describe("Content-Range (docs/aps/rql.md section 6)", () => {
  it("reads back the page the controller wrote", () => {
    for (const [start, count, total] of [
      [0, 10, 100],
      [20, 2, 22],
      [0, 1, 1],
    ] as const) {
      expect(parseContentRange(contentRangeHeader(start, count, total))).toEqual({
        first: start,
        last: start + count - 1,
        total,
      });
    }
  });

  it("writes a star for an empty page, read back as the total alone", () => {
    expect(contentRangeHeader(5, 0, 3)).toBe("items */3");
    expect(parseContentRange("items */3")).toEqual({ total: 3 });
  });

  it("reads nothing from an absent header or another kind of range", () => {
    for (const header of [null, "", "bytes 0-9/100", "items 0-9", "items a-b/3"])
      expect(parseContentRange(header)).toBeUndefined();
  });
});
