import { describe, expect, it } from "vitest";
import { fillPath, pathParameterNames, routePattern, routeShape } from "../../runtime/common/path-template.ts";

describe("declared operation paths", () => {
  it("reads placeholders once for every user", () => {
    expect(pathParameterNames("/report/{day}/{kind}")).toEqual(["day", "kind"]);
    expect(pathParameterNames("/plain")).toEqual([]);
    expect(routePattern("/report/{day}/x")).toBe("/report/:day/x");
    expect(routeShape("/report/{day}")).toBe(routeShape("/report/{name}"));
    expect(routeShape("/report/{day}")).not.toBe(routeShape("/reports/{day}"));
    expect(fillPath("/a/{x}/{y}", (n) => encodeURIComponent(n === "x" ? "1/2" : "z"))).toBe("/a/1%2F2/z");
  });

  it("takes no braces or slashes into a name", () => {
    expect(pathParameterNames("/a/{b/c}/{d}")).toEqual(["d"]);
    expect(fillPath("/{{x}}", () => "v")).toBe("/{v}");
  });
});
