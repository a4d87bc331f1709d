import { describe, expect, it } from "vitest";
import { uninstallOrder } from "../../runtime/controller/instances/uninstall-order.ts";

const ids = (order: readonly { id: string }[]) => order.map((r) => r.id);
const resources = (...list: string[]) => list.map((id) => ({ id }));

describe("uninstall order", () => {
  it("removes dependents before what they hold strong links to, and the root last", () => {
    // root <- site <- mailbox (each holds a strong link to the one before)
    const order = uninstallOrder(
      resources("root", "site", "mailbox", "loose"),
      [
        { source: "site", target: "root" },
        { source: "mailbox", target: "site" },
      ],
      "root",
    );
    expect(ids(order)).toEqual(["mailbox", "loose", "site", "root"]);
  });

  it("keeps the root for last even when nothing holds it", () => {
    expect(ids(uninstallOrder(resources("root", "a", "b"), [], "root"))).toEqual(["a", "b", "root"]);
  });

  it("takes a cycle of strong links together, in the order listed, rather than stop", () => {
    const order = uninstallOrder(
      resources("x", "y", "root"),
      [
        { source: "x", target: "y" },
        { source: "y", target: "x" },
      ],
      "root",
    );
    expect(ids(order)).toEqual(["x", "y", "root"]);
  });

  it("ignores links from resources already removed, and an instance without a root", () => {
    expect(ids(uninstallOrder(resources("a", "b"), [{ source: "gone", target: "a" }], null))).toEqual(["a", "b"]);
    expect(uninstallOrder([], [{ source: "a", target: "b" }], "root")).toEqual([]);
  });
});
