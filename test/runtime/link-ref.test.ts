import { describe, expect, it } from "vitest";
import { checkLinkRef, linkRef, linkRefId } from "../../runtime/common/link-ref.ts";
import type { ValidationError } from "../../runtime/common/validation-error.ts";

/** One reader of `{"aps": {"id"}}` for the controller, the connector and the generated validators. */
describe("link references", () => {
  it("reads back the id of the reference it writes", () => {
    expect(linkRef("r-1")).toEqual({ aps: { id: "r-1" } });
    expect(linkRefId(linkRef("r-1"))).toBe("r-1");
    expect(linkRefId({ aps: { id: "r-2", href: "/aps/2/resources/r-2", link: "weak" } })).toBe("r-2");
  });

  it("reads no id from anything else, and the validator says so", () => {
    for (const value of [
      undefined,
      null,
      "r-1",
      [],
      { id: "r-1" },
      { aps: null },
      { aps: { id: 5 } },
      [{ aps: { id: "r-1" } }],
    ]) {
      expect(linkRefId(value)).toBeUndefined();
      const errors: ValidationError[] = [];
      checkLinkRef(value, "/tenant", errors);
      expect(errors.map((e) => e.path)).toEqual(["/tenant"]);
    }
  });
});
